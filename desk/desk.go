package desk

import (
	"errors"

	"switchboard/mailbox"
	"switchboard/rules"
	"switchboard/workspace"
)

// Desk is one agent's: the workspace, its rules, and who the agent is.
// Rules may be nil for what needs none (reading one's own mail).
type Desk struct {
	ws    *workspace.Workspace
	rules *rules.Rules
	agent string
}

// New returns the desk of agent in ws, under rules r.
func New(ws *workspace.Workspace, r *rules.Rules, agent string) *Desk {
	return &Desk{ws: ws, rules: r, agent: agent}
}

// Agent is the desk's agent.
func (d *Desk) Agent() string { return d.agent }

// Workspace is the desk's workspace.
func (d *Desk) Workspace() *workspace.Workspace { return d.ws }

// Rules are the rules the desk was opened with; nil when they did not load.
func (d *Desk) Rules() *rules.Rules { return d.rules }

// ErrNoRules is returned for what needs the rules when they did not load.
var ErrNoRules = errors.New("the rules did not load")

func (d *Desk) store() *mailbox.Store { return d.ws.Store }
