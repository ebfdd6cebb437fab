package desk

import (
	"errors"
	"fmt"
	"time"

	"switchboard/approvals"
)

// ErrDecision is an approval that is neither always nor never.
var ErrDecision = errors.New("an approval is always or never")

// Approvals lists the always and never answers given to permission
// prompts.
func (d *Desk) Approvals() ([]approvals.Approval, error) {
	return d.ws.Approvals().List()
}

// SetApproval gives an always or never ahead, for agent's calls of tool
// that rule covers. The agent's ancestors and the overseers may (a
// *RightError for the others).
func (d *Desk) SetApproval(agent, decision, tool, rule string) (approvals.Approval, error) {
	if decision != approvals.Always && decision != approvals.Never {
		return approvals.Approval{}, fmt.Errorf("%w, not %q", ErrDecision, decision)
	}
	if d.rules == nil {
		return approvals.Approval{}, d.noRules()
	}
	if !d.rules.Knows(agent) {
		return approvals.Approval{}, NotAnAgent(d.rules, agent)
	}
	if !d.rules.IsAncestor(d.agent, agent) && !d.rules.IsOverseer(d.agent) {
		return approvals.Approval{}, &RightError{fmt.Sprintf("%s may not answer for %s: its ancestors and the overseers may", d.agent, agent)}
	}
	return d.ws.Approvals().Remember(approvals.Approval{Agent: agent, Tool: tool, Rule: rule, Decision: decision, By: d.agent, At: time.Now().UTC()})
}

// RevokeApproval takes back the approval whose id starts with id: its
// giver, the agent's ancestors and the overseers may (a *RightError for
// the others). approvals.ErrNotFound when none matches.
func (d *Desk) RevokeApproval(id string) (approvals.Approval, error) {
	if d.rules == nil {
		return approvals.Approval{}, d.noRules()
	}
	return d.ws.Approvals().Revoke(id, func(a approvals.Approval) error {
		if a.By != d.agent && !d.rules.IsAncestor(d.agent, a.Agent) && !d.rules.IsOverseer(d.agent) {
			return &RightError{fmt.Sprintf("%s may not revoke approval %s: its giver (%s), %s's ancestors and the overseers may", d.agent, a.ID, a.By, a.Agent)}
		}
		return nil
	})
}
