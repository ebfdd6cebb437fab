package profile

import (
	"time"

	"switchboard/mailbox"
	"switchboard/workspace"
)

// Prompts is where an agent's permission prompts go. The permission bridge
// sends them there, and the master vouches for a prompt only when it went
// there: both read it here, so that they cannot disagree.
type Prompts struct {
	// Approvals is the profile's choice, or its default: ApprovalsParent,
	// ApprovalsPane or ApprovalsDeny.
	Approvals string
	// Answerer is the agent that answers a prompt sent up: the agent's
	// parent, else the operator.
	Answerer string
	// Timeout is how long a prompt sent up waits for its answer.
	Timeout time.Duration
}

// PromptsOf is where the permission prompts of agent go, by its profile
// (a spawned agent's resolved as Team does) and its parent.
func PromptsOf(ws *workspace.Workspace, agent string) (Prompts, error) {
	profiles, err := LoadProfiles(ws.Profiles())
	if err != nil {
		return Prompts{Approvals: ApprovalsPane}, err
	}
	spawned, err := ws.Spawned()
	if err != nil {
		return Prompts{Approvals: ApprovalsPane}, err
	}
	s, isSpawned := spawned[agent]
	answerer := s.Parent
	if answerer == "" {
		answerer = mailbox.Operator
	}
	p := resolveProfile(agent, profiles, spawned, 0)
	return Prompts{Approvals: p.ApprovalsFor(isSpawned), Answerer: answerer, Timeout: p.Timeout()}, nil
}
