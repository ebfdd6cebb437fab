package bulletin

import (
	"encoding/json"
	"time"
)

// Bulletin is the document.
type Bulletin struct {
	SystemStatus    string                     `json:"system_status"`
	CurrentPhase    string                     `json:"current_phase,omitempty"`
	ActiveAgents    []string                   `json:"active_agents"`
	Warnings        []Warning                  `json:"warnings"`
	SharedResources map[string]Lock            `json:"shared_resources"`
	Agents          map[string]AgentSummary    `json:"agents"`
	SharedState     map[string]json.RawMessage `json:"shared_state"`
	UpdatedAt       time.Time                  `json:"updated_at,omitzero"`
}

// Warning is one line the team should see until an overseer clears it.
type Warning struct {
	Text string    `json:"text"`
	From string    `json:"from"`
	At   time.Time `json:"at"`
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
	if b.SharedState == nil {
		b.SharedState = map[string]json.RawMessage{}
	}
}
