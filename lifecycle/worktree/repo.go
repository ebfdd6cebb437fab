package worktree

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// ErrNotRepo is a folder outside any git repository.
var ErrNotRepo = errors.New("is not inside a git repository")

// ErrBare is a bare repository: it has no checkout to branch a tree from.
var ErrBare = errors.New("is a bare git repository, which has no working tree to start from")

// ErrNoTree is an agent without a worktree in the repository.
var ErrNoTree = errors.New("has no worktree")

// Repo is the git repository the agents' trees branch from.
type Repo struct {
	// Root is the top folder of its main checkout.
	Root string
	// common is its git folder, links resolved: where it keeps its
	// objects, refs, configuration and the records of its worktrees.
	common string
}

// Tree is one agent's worktree.
type Tree struct {
	Agent  string `json:"agent"`
	Path   string `json:"path"`
	Branch string `json:"branch"`
	// Base is the commit its changes are counted from: where it started,
	// or what was last merged from it.
	Base string `json:"base"`
	// Created says the tree was made by this call, not found.
	Created bool `json:"-"`
}

// Branch is the branch of an agent's tree.
func Branch(agent string) string { return "switchboard/" + agent }

// baseRef keeps the commit an agent's tree is counted from.
func baseRef(agent string) string { return "refs/switchboard/base/" + agent }

// Open finds the repository that holds dir. The trees of agents branch from
// its main checkout, whichever worktree dir is in.
func Open(ctx context.Context, dir string) (*Repo, error) {
	out, err := gitCmd(ctx, dir, nil, "rev-parse", "--is-bare-repository")
	if err == nil && strings.TrimSpace(out) == "true" {
		return nil, fmt.Errorf("%s %w", dir, ErrBare)
	}
	if err == nil {
		out, err = gitCmd(ctx, dir, nil, "rev-parse", "--path-format=absolute", "--git-common-dir", "--show-toplevel")
	}
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && strings.Contains(ge.Stderr, "not a git repository") {
			return nil, fmt.Errorf("%s %w", dir, ErrNotRepo)
		}
		return nil, err
	}
	ls := lines(out)
	if len(ls) != 2 {
		return nil, fmt.Errorf("%s: git rev-parse gave %q", dir, out)
	}
	// A linked worktree's main checkout is beside the common .git folder;
	// a submodule's is its own top folder.
	root := ls[1]
	common := filepath.Clean(ls[0])
	if filepath.Base(common) == ".git" {
		root = filepath.Dir(common)
	}
	// The trees' .git files name the common folder by its real path.
	if common, err = filepath.EvalSymlinks(common); err != nil {
		return nil, fmt.Errorf("the git folder of %s: %w", dir, err)
	}
	return &Repo{Root: root, common: common}, nil
}

// DefaultDir is where the trees live unless a profile says otherwise.
func (r *Repo) DefaultDir() string { return filepath.Join(r.Root, ".switchboard", "worktrees") }

// listed is one worktree git lists.
type listed struct {
	path, branch string
}

// worktrees lists the repository's worktrees, the main one first.
func (r *Repo) worktrees(ctx context.Context) ([]listed, error) {
	out, err := r.git(ctx, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	var all []listed
	for _, block := range strings.Split(out, "\n\n") {
		var c listed
		for _, l := range lines(block) {
			switch {
			case strings.HasPrefix(l, "worktree "):
				c.path = strings.TrimPrefix(l, "worktree ")
			case strings.HasPrefix(l, "branch refs/heads/"):
				c.branch = strings.TrimPrefix(l, "branch refs/heads/")
			}
		}
		if c.path != "" {
			all = append(all, c)
		}
	}
	return all, nil
}

// checkedOut is where branch is checked out, or "".
func (r *Repo) checkedOut(ctx context.Context, branch string) (string, error) {
	all, err := r.worktrees(ctx)
	if err != nil {
		return "", err
	}
	for _, c := range all {
		if c.branch == branch {
			return c.path, nil
		}
	}
	return "", nil
}

// Find returns the agent's tree; ErrNoTree when it has none.
func (r *Repo) Find(ctx context.Context, agent string) (Tree, error) {
	path, err := r.checkedOut(ctx, Branch(agent))
	if err != nil {
		return Tree{}, err
	}
	if path == "" {
		return Tree{}, fmt.Errorf("%s %w in %s", agent, ErrNoTree, r.Root)
	}
	base, err := r.base(ctx, agent)
	if err != nil {
		return Tree{}, err
	}
	return Tree{Agent: agent, Path: path, Branch: Branch(agent), Base: base}, nil
}

// base is the commit the agent's changes are counted from: the ref kept for
// it, else where its branch left the main checkout's.
func (r *Repo) base(ctx context.Context, agent string) (string, error) {
	if out, err := r.git(ctx, "rev-parse", "--verify", "--quiet", baseRef(agent)+"^{commit}"); err == nil {
		return strings.TrimSpace(out), nil
	}
	out, err := r.git(ctx, "merge-base", "HEAD", "refs/heads/"+Branch(agent))
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// hasBranch reports whether the local branch exists.
func (r *Repo) hasBranch(ctx context.Context, branch string) bool {
	_, err := r.git(ctx, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch)
	return err == nil
}
