package desk

import (
	"fmt"
	"strings"
	"time"

	"switchboard/mailbox"
	"switchboard/rules"
)

// UnknownAgentError is a recipient the team does not have; Near is the
// agent it may have meant, or "".
type UnknownAgentError struct {
	Name, Near string
	Team       []string
}

func (e *UnknownAgentError) Error() string {
	if e.Near != "" {
		return fmt.Sprintf("%q is not an agent of this team; did you mean %s?", e.Name, e.Near)
	}
	return fmt.Sprintf("%q is not an agent of this team (the team: %s)", e.Name, strings.Join(e.Team, ", "))
}

// NotAnAgent is the error for name, which the team r does not have.
func NotAnAgent(r *rules.Rules, name string) *UnknownAgentError {
	near, _ := r.Closest(name)
	return &UnknownAgentError{Name: name, Near: near, Team: r.Agents()}
}

// BlockedError is a message the rules keep from every recipient: it went
// out (the master logs the attempt) but reaches no one.
type BlockedError struct{ Reasons []string }

func (e *BlockedError) Error() string {
	return fmt.Sprintf("BLOCKED by the rules: %s (the attempt is logged)", strings.Join(e.Reasons, "; "))
}

// Sent is what became of a message posted.
type Sent struct {
	ID string `json:"id"`
	// Blocked are the recipients the rules keep it from, each "from → to:
	// reason"; a broadcast is sent when it reaches anyone.
	Blocked []string `json:"blocked,omitempty"`
	// Queued is true when no master runs: the message is delivered when one
	// starts.
	Queued bool `json:"queued,omitempty"`
}

// Send posts msg from the desk's agent, after checking it and its
// recipients. A message the rules block for every recipient is still
// posted, so that the master logs the attempt and tells the sender; Send
// then returns a *BlockedError with the Sent. An unknown recipient is an
// *UnknownAgentError, and nothing is posted. An invalid message wraps
// mailbox.ErrInvalid.
func (d *Desk) Send(msg *mailbox.Message) (Sent, error) {
	if err := d.currentRules(); err != nil {
		return Sent{}, err
	}
	msg.From = d.agent
	msg.Normalize(time.Now())
	if err := msg.Validate(); err != nil {
		return Sent{}, err
	}
	route := d.rules.Route(d.agent, msg)
	if len(route.Unknown) > 0 {
		return Sent{}, NotAnAgent(d.rules, route.Unknown[0])
	}
	sent := Sent{ID: msg.ID}
	for _, b := range route.Blocked {
		sent.Blocked = append(sent.Blocked, fmt.Sprintf("%s → %s: %s", d.agent, b.To, b.Reason))
	}
	if _, err := d.store().Post(d.agent, msg); err != nil {
		return Sent{}, fmt.Errorf("queue message: %w", err)
	}
	_, running := d.ws.MasterRunning()
	sent.Queued = !running
	if len(sent.Blocked) > 0 && (!msg.IsBroadcast() || len(route.Delivered) == 0) {
		return sent, &BlockedError{Reasons: sent.Blocked}
	}
	return sent, nil
}
