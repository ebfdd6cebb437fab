package desk

import (
	"context"

	"switchboard/lifecycle"
	"switchboard/lifecycle/worktree"
)

// WouldDiscard is the work that Close with discard would throw away, for
// the one closing to be asked about before: the worktrees of agent, and of
// every agent spawned under it, that hold work nothing else does (changes
// not committed, commits no other branch holds). It refuses as Close
// would: an agent that is not the desk's agent's to close is an error
// here, before anything is asked.
func (d *Desk) WouldDiscard(ctx context.Context, agent string) ([]*worktree.UnsavedError, error) {
	kept, err := d.closable(agent)
	if err != nil {
		return nil, err
	}
	if kept {
		p, err := d.profileOf(agent)
		if err != nil {
			return nil, err
		}
		if _, _, err := lifecycle.TreeOf(ctx, d.ws, p); noTreeLeft(err) {
			return nil, nil // Close says there is nothing left
		}
		if err := d.mayTend(agent, "remove the worktree of"); err != nil {
			return nil, err
		}
	}
	return lifecycle.WouldDiscard(ctx, d.ws, agent)
}
