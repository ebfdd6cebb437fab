package desk

import (
	"errors"
	"fmt"
	"strings"

	"switchboard/mailbox"
)

// ErrNoReason is an interrupt that does not say why.
var ErrNoReason = errors.New("an interrupt says why the agent should stop")

// Interrupt stops agent with ESC and tells it why: the master sends the
// interrupt to its pane. The interrupts list of the rules may interrupt
// anyone, and an agent the agents it spawned (a *RightError for the
// others).
func (d *Desk) Interrupt(agent, reason string) (Sent, error) {
	if strings.TrimSpace(reason) == "" {
		return Sent{}, ErrNoReason
	}
	if err := d.currentRules(); err != nil {
		return Sent{}, err
	}
	if !d.rules.Knows(agent) {
		return Sent{}, NotAnAgent(d.rules, agent)
	}
	if !d.rules.MayInterruptAgent(d.agent, agent) {
		return Sent{}, &RightError{Msg: fmt.Sprintf("%s may not interrupt %s: only the interrupts list of the rules may, and an agent the agents it spawned; send an ordinary message instead", d.agent, agent)}
	}
	return d.Send(&mailbox.Message{
		To:       []string{agent},
		Title:    mailbox.ClipTitle(reason),
		Content:  reason,
		Priority: mailbox.PriorityUrgent,
		Type:     mailbox.TypeInterrupt,
	})
}
