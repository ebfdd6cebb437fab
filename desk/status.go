package desk

import (
	"switchboard/bulletin"
	"switchboard/mailbox"
	"switchboard/workspace"
)

// Status is what every agent is shown before each prompt: its mailbox and
// the team's bulletin. The hooks and the status line draw it; the MCP
// server's status tool returns it.
type Status struct {
	Agent  string `json:"agent"`
	Unread int    `json:"unread"`
	Urgent int    `json:"urgent"`
	// Unverified counts the unread files no record of the master vouches
	// for: written into the inbox by hand.
	Unverified int                `json:"unverified"`
	Bulletin   *bulletin.Bulletin `json:"bulletin"`
}

// ReadStatus gathers an agent's status from file names and the bulletin,
// opening no message.
func ReadStatus(ws *workspace.Workspace, agent string) (*Status, error) {
	sum, err := ws.Store.InboxSummary(agent)
	if err != nil {
		return nil, err
	}
	return StatusOf(ws, agent, sum)
}

// StatusOf is ReadStatus for a caller that has read the inbox's summary.
func StatusOf(ws *workspace.Workspace, agent string, sum mailbox.InboxSummary) (*Status, error) {
	b, err := bulletin.Of(ws).Read()
	if err != nil {
		return nil, err
	}
	return &Status{Agent: agent, Unread: sum.Unread, Urgent: sum.Urgent, Unverified: sum.Unverified, Bulletin: b}, nil
}
