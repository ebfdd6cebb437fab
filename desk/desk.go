package desk

import (
	"errors"
	"fmt"

	"switchboard/conversation"
	"switchboard/lifecycle"
	"switchboard/mailbox"
	"switchboard/master/link/errand"
	"switchboard/rules"
	"switchboard/workspace"
)

// Desk is one agent's: the workspace, its rules, and who the agent is.
// Rules may be nil for what needs none (reading one's own mail).
type Desk struct {
	ws    *workspace.Workspace
	rules *rules.Rules
	agent string
	// whyNoRules is why the rules file did not load: rules is then nil, or
	// the rules the master last loaded, which serve what only reads.
	whyNoRules error
	// wiring fits the agents Spawn starts with their hooks; nil starts them
	// unwired.
	wiring Wiring
}

// Wiring gives what wires the hooks of an agent the desk spawns in ws
// (package hooks makes it), with switchboard's MCP server unless noMCP. The
// commands hand it to the desk, which starts agents but speaks no client's
// hook protocol.
type Wiring func(ws *workspace.Workspace, noMCP bool) lifecycle.Wirer

// New returns the desk of agent in ws, under rules r.
func New(ws *workspace.Workspace, r *rules.Rules, agent string) *Desk {
	return &Desk{ws: ws, rules: r, agent: agent}
}

// WithoutRules returns the desk of agent in ws when its rules do not load,
// for why: what needs no rules (reading one's mail) works, the rest says
// why it cannot.
func WithoutRules(ws *workspace.Workspace, agent string, why error) *Desk {
	return &Desk{ws: ws, agent: agent, whyNoRules: why}
}

// WithLoadedRules returns the desk of agent in ws when the rules file does
// not load, for why, but the master's copy of the rules it routes by, r,
// does: what reads (the log, the team, one's mail) and what stops (close,
// cancel) goes on under r; what sends or spawns says why it cannot.
func WithLoadedRules(ws *workspace.Workspace, r *rules.Rules, agent string, why error) *Desk {
	return &Desk{ws: ws, rules: r, agent: agent, whyNoRules: why}
}

// WithWiring returns a copy of the desk that wires the hooks of the
// agents it spawns with w.
func (d *Desk) WithWiring(w Wiring) *Desk {
	c := *d
	c.wiring = w
	return &c
}

// currentRules returns the error of what needs the rules file as it is now
// (sending, spawning) when it does not load.
func (d *Desk) currentRules() error {
	if d.rules == nil || d.whyNoRules != nil {
		return d.noRules()
	}
	return nil
}

// noRules is the error of what needs the rules when they did not load.
func (d *Desk) noRules() error {
	if d.whyNoRules == nil {
		return ErrNoRules
	}
	return fmt.Errorf("%w: %w", ErrNoRules, d.whyNoRules)
}

// Agent is the desk's agent.
func (d *Desk) Agent() string { return d.agent }

// Workspace is the desk's workspace.
func (d *Desk) Workspace() *workspace.Workspace { return d.ws }

// ErrNoRules is returned for what needs the rules when they did not load.
var ErrNoRules = errors.New("the rules did not load")

func (d *Desk) store() *mailbox.Store { return d.ws.Store }

// book keeps each agent's state and the files about its conversation.
func (d *Desk) book() *conversation.Book { return conversation.Of(d.ws.Store) }

// errands is where the desk leaves errands for the master, and finds its
// answers.
func (d *Desk) errands() *errand.Box { return errand.In(d.ws.Store) }
