package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"switchboard/lifecycle/worktree"
	"switchboard/profile"
	"switchboard/workspace"
)

// TreeError is an agent whose worktree could not be made: which agent,
// what asked for the tree, and why it failed.
type TreeError struct {
	Agent  string
	Source string // "worktree: true in agents/x.yaml", or where else it was asked for
	Err    error
}

func (e *TreeError) Error() string {
	msg := fmt.Sprintf("the worktree of %s (%s): %v", e.Agent, e.Source, e.Err)
	var checkedOut *worktree.CheckedOutError
	switch {
	case errors.Is(e.Err, worktree.ErrNotRepo):
		msg += "; start the team in a git repository (git init), give the profile a cwd inside one, or take worktree: true out"
	case errors.Is(e.Err, worktree.ErrBare):
		msg += "; give the profile a cwd in a checkout of that repository"
	case errors.As(e.Err, &checkedOut):
		msg += fmt.Sprintf("; switch that checkout to another branch (git -C %s switch -), or remove it (git worktree remove %s)", checkedOut.Path, checkedOut.Path)
	case errors.Is(e.Err, worktree.ErrNoGit):
		msg += "; install git, or take worktree: true out"
	case errors.Is(e.Err, worktree.ErrLink):
		msg += "; see where the link leads and remove it: worktree_copy copies only between folders of their own"
	case errors.Is(e.Err, worktree.ErrRefused):
		msg += "; git there would run what the tree's owner chose, so switchboard runs none: see what the tree holds yourself"
	}
	return msg
}

func (e *TreeError) Unwrap() error { return e.Err }

// treeSource says what asked for an agent's tree.
func treeSource(p *profile.Profile, spawnedWithTree bool) string {
	if p.Path != "" && !spawnedWithTree {
		return "worktree: true in " + p.Path
	}
	return "a worktree asked for at spawn"
}

// repoOf is the repository that holds an agent's folder (its profile's cwd,
// else the workspace's root).
func repoOf(ctx context.Context, p *profile.Profile, ws *workspace.Workspace) (repo *worktree.Repo, cwd string, err error) {
	cwd = p.Cwd
	if cwd == "" {
		cwd = ws.Root
	}
	repo, err = worktree.Open(ctx, cwd)
	return repo, cwd, err
}

// treeDir gives an agent (its expanded profile) its worktree and returns the
// folder to start it in: the place in the tree of the folder it would have
// had. A helper without a base of its own starts from its parent's branch,
// when its parent has a tree: it carries on its parent's work.
func treeDir(ctx context.Context, p *profile.Profile, ws *workspace.Workspace, parent string, spawnedWithTree bool) (string, error) {
	fail := func(err error) (string, error) {
		return "", &TreeError{Agent: p.Name, Source: treeSource(p, spawnedWithTree), Err: err}
	}
	repo, cwd, err := repoOf(ctx, p, ws)
	if err != nil {
		return fail(err)
	}
	rel, err := filepath.Rel(repo.Root, cwd)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = "."
	}
	base := p.WorktreeBase
	if base == "" && parent != "" {
		if t, err := repo.Find(ctx, parent); err == nil {
			base = t.Branch
		}
	}
	tree, err := repo.Add(ctx, worktree.AddOptions{
		Agent: p.Name, Dir: p.WorktreeDir, Base: base, Copy: p.WorktreeCopy,
		Setup: p.WorktreeSetup, SetupTimeout: p.WorktreeSetupTimeout,
	})
	if err != nil {
		return fail(err)
	}
	return filepath.Join(tree.Path, rel), nil
}

// TreeOf is an agent's worktree and its repository; ErrNoTree (of package
// worktree) when it has none.
func TreeOf(ctx context.Context, ws *workspace.Workspace, p *profile.Profile) (*worktree.Repo, worktree.Tree, error) {
	expanded, err := p.Expand(profile.DefaultVars(ws.Root))
	if err != nil {
		return nil, worktree.Tree{}, err
	}
	repo, _, err := repoOf(ctx, expanded, ws)
	if err != nil {
		return nil, worktree.Tree{}, err
	}
	tree, err := repo.Find(ctx, p.Name)
	return repo, tree, err
}

// TreeFate is what became of a closed agent's worktree.
type TreeFate struct {
	Agent string        `json:"agent"`
	Tree  worktree.Tree `json:"tree"`
	Repo  string        `json:"repo"` // the main checkout's folder
	// Removed says the tree and its branch are gone; Discarded lists the
	// work thrown away with them when that was asked for.
	Removed   bool             `json:"removed"`
	Discarded worktree.Unsaved `json:"discarded,omitzero"`
	// Kept says why the tree stays: the work only it holds, or an error.
	Kept error `json:"-"`
}

// closeTrees removes the worktrees of closed agents that hold nothing of
// their own, or everything when discard is set, and keeps the others.
func closeTrees(ctx context.Context, ws *workspace.Workspace, team []*profile.Profile, discard bool) []TreeFate {
	var fates []TreeFate
	for _, p := range team {
		if !p.Worktree {
			continue
		}
		if fate, found := CloseTree(ctx, ws, p, discard); found {
			fates = append(fates, fate)
		}
	}
	return fates
}

// CloseTree removes an agent's worktree and its branch when the tree holds
// nothing of its own, or whatever it holds when discard is set, and says
// what became of it; found is false when the agent has no tree.
func CloseTree(ctx context.Context, ws *workspace.Workspace, p *profile.Profile, discard bool) (fate TreeFate, found bool) {
	repo, tree, err := TreeOf(ctx, ws, p)
	if errors.Is(err, worktree.ErrNoTree) {
		return TreeFate{}, false
	}
	fate = TreeFate{Agent: p.Name, Tree: tree}
	if repo != nil {
		fate.Repo = repo.Root
	}
	if err != nil {
		fate.Kept = err
		return fate, true
	}
	lost, err := repo.Remove(ctx, tree, discard)
	fate.Removed, fate.Kept = err == nil, err
	if discard {
		fate.Discarded = lost
	}
	return fate, true
}
