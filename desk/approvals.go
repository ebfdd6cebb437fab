package desk

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"switchboard/rules/approvals"
)

// Errors of an approval asked for: ErrDecision one neither always nor
// never, ErrNoRule one that names no calls, ErrShortID an id too short to
// tell one approval from another.
var (
	ErrDecision = errors.New("an approval is always or never")
	ErrNoRule   = errors.New("an approval names the calls it covers (\"*\" for every call of the tool)")
	ErrShortID  = errors.New("an approval is named by at least 4 characters of its id")
)

// Approvals lists the always and never answers given to permission
// prompts.
func (d *Desk) Approvals() ([]approvals.Approval, error) {
	return approvals.Of(d.ws).List()
}

// SetApproval gives an always or never ahead, for agent's calls of tool
// that rule covers. The agent's ancestors and the overseers may (a
// *RightError for the others).
func (d *Desk) SetApproval(agent, decision, tool, rule string) (approvals.Approval, error) {
	if decision != approvals.Always && decision != approvals.Never {
		return approvals.Approval{}, fmt.Errorf("%w, not %q", ErrDecision, decision)
	}
	if strings.TrimSpace(rule) == "" {
		return approvals.Approval{}, ErrNoRule
	}
	if d.rules == nil {
		return approvals.Approval{}, d.noRules()
	}
	if !d.rules.Knows(agent) {
		return approvals.Approval{}, NotAnAgent(d.rules, agent)
	}
	if !d.rules.IsAncestor(d.agent, agent) && !d.rules.IsOverseer(d.agent) {
		return approvals.Approval{}, &RightError{Msg: fmt.Sprintf("%s may not answer for %s: its ancestors and the overseers may", d.agent, agent)}
	}
	return approvals.Of(d.ws).Remember(approvals.Approval{Agent: agent, Tool: tool, Rule: rule, Decision: decision, By: d.agent, At: time.Now().UTC()})
}

// RevokeApproval takes back the approval whose id starts with id: its
// giver, the agent's ancestors and the overseers may (a *RightError for
// the others). approvals.ErrNotFound when none matches.
func (d *Desk) RevokeApproval(id string) (approvals.Approval, error) {
	if len(id) < 4 {
		return approvals.Approval{}, ErrShortID
	}
	if d.rules == nil {
		return approvals.Approval{}, d.noRules()
	}
	return approvals.Of(d.ws).Revoke(id, func(a approvals.Approval) error {
		if a.By != d.agent && !d.rules.IsAncestor(d.agent, a.Agent) && !d.rules.IsOverseer(d.agent) {
			return &RightError{Msg: fmt.Sprintf("%s may not revoke approval %s: its giver (%s), %s's ancestors and the overseers may", d.agent, a.ID, a.By, a.Agent)}
		}
		return nil
	})
}
