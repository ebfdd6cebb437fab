package bulletin

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Bulletin is the document.
type Bulletin struct {
	SystemStatus    string                  `json:"system_status"`
	CurrentPhase    string                  `json:"current_phase,omitempty"`
	ActiveAgents    []string                `json:"active_agents"`
	Warnings        []Warning               `json:"warnings"`
	SharedResources map[string]Lock         `json:"shared_resources"`
	Agents          map[string]AgentSummary `json:"agents"`
	// SharedState is where a bulletin of an earlier version kept the
	// shared state, which now has a file of its own (Store.ReadState).
	SharedState map[string]json.RawMessage `json:"shared_state,omitempty"`
	UpdatedAt   time.Time                  `json:"updated_at,omitzero"`
}

// MaxWarnings bounds the warnings the bulletin holds: every hook shows them.
const MaxWarnings = 64

// Warning is one line the team should see until an overseer clears it.
type Warning struct {
	Text string `json:"text"`
	From string `json:"from"`
	// Topic is what a warning of switchboard's own is about (TopicDisk,
	// TopicRules): a newer one on the same topic takes its place.
	Topic string    `json:"topic,omitempty"`
	At    time.Time `json:"at"`
}

// Lock is a shared resource held by one agent.
type Lock struct {
	Holder string    `json:"holder"`
	Reason string    `json:"reason,omitempty"`
	Since  time.Time `json:"since"`
}

// AgentSummary is what the master reports of one agent.
type AgentSummary struct {
	State  string `json:"state"`
	Unread int    `json:"unread"`
	Urgent int    `json:"urgent"`
}

// DefaultStatus is the system status of a new bulletin.
const DefaultStatus = "normal"

// Statuses are the system statuses a bulletin may be set to: all is well;
// the team is paused (agents should finish and wait); something is broken
// and work goes on with care (switchboard sets it when the disk is full);
// work cannot go on.
var Statuses = []string{DefaultStatus, "paused", StatusDegraded, "blocked"}

// ErrStatus is a system status that is none of Statuses.
var ErrStatus = errors.New("not a system status")

// CheckStatus returns ErrStatus, wrapped, for a status not in Statuses.
func CheckStatus(status string) error {
	if !slices.Contains(Statuses, status) {
		return fmt.Errorf("%q is %w: it is one of %s", status, ErrStatus, strings.Join(Statuses, ", "))
	}
	return nil
}

// New returns an empty bulletin.
func New() *Bulletin {
	b := &Bulletin{}
	b.fill()
	return b
}

// fill makes nil maps and lists empty, so that the JSON always has them.
func (b *Bulletin) fill() {
	if b.SystemStatus == "" {
		b.SystemStatus = DefaultStatus
	}
	if b.ActiveAgents == nil {
		b.ActiveAgents = []string{}
	}
	if b.Warnings == nil {
		b.Warnings = []Warning{}
	}
	if b.SharedResources == nil {
		b.SharedResources = map[string]Lock{}
	}
	if b.Agents == nil {
		b.Agents = map[string]AgentSummary{}
	}
}
