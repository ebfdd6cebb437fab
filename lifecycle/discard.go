package lifecycle

import (
	"context"

	"switchboard/lifecycle/worktree"
	"switchboard/profile"
	"switchboard/workspace"
)

// WouldDiscard is the work that Close (or CloseTree) with discard would
// throw away: the worktrees of agent, and of every agent spawned under it,
// that hold work nothing else does, each as the *worktree.UnsavedError a
// close without discard keeps it with. Of an agent no longer spawned (one
// closed before), it looks at the tree that agent left.
//
// A tree git may not look at, or that cannot be read, is not listed: close
// keeps such a tree whatever it is asked.
func WouldDiscard(ctx context.Context, ws *workspace.Workspace, agent string) ([]*worktree.UnsavedError, error) {
	spawned, err := ws.Spawned()
	if err != nil {
		return nil, err
	}
	order, live := []string{agent}, false
	if _, ok := spawned[agent]; ok {
		order, live = append(Descendants(spawned, agent), agent), true
	}
	team, _, err := profile.Team(ws, order)
	if err != nil {
		return nil, err
	}
	var lost []*worktree.UnsavedError
	for _, p := range team {
		if live && !p.Worktree {
			continue // as closeTrees: close leaves such a tree alone
		}
		repo, tree, err := TreeOf(ctx, ws, p)
		if err != nil {
			continue
		}
		u, err := repo.Unsaved(ctx, tree)
		if err != nil || u.Empty() {
			continue
		}
		lost = append(lost, &worktree.UnsavedError{Tree: tree, Unsaved: u})
	}
	return lost, nil
}
