package worktree

import (
	"context"
	"fmt"
	"strings"
)

// Unsaved is the work a tree holds that nothing else does: files changed
// and not committed, and commits no other branch, local or remote, holds.
type Unsaved struct {
	Files   []string `json:"files,omitempty"`   // git status --short lines
	Commits []string `json:"commits,omitempty"` // git log --oneline lines
}

// Empty reports whether nothing would be lost.
func (u Unsaved) Empty() bool { return len(u.Files) == 0 && len(u.Commits) == 0 }

func (u Unsaved) String() string {
	var parts []string
	if n := len(u.Files); n > 0 {
		parts = append(parts, fmt.Sprintf("%d uncommitted %s (%s)", n, plural(n, "file", "files"), strings.Join(clip(u.Files, 5), "; ")))
	}
	if n := len(u.Commits); n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s not merged anywhere (%s)", n, plural(n, "commit", "commits"), strings.Join(clip(u.Commits, 5), "; ")))
	}
	return strings.Join(parts, " and ")
}

// UnsavedError is a tree kept because removing it would lose work.
type UnsavedError struct {
	Tree    Tree
	Unsaved Unsaved
}

func (e *UnsavedError) Error() string {
	return fmt.Sprintf("the worktree of %s at %s (branch %s) holds %s", e.Tree.Agent, e.Tree.Path, e.Tree.Branch, e.Unsaved)
}

// Unsaved lists the work only the tree holds.
func (r *Repo) Unsaved(ctx context.Context, t Tree) (Unsaved, error) {
	var u Unsaved
	c, err := r.tree(t)
	if err != nil {
		return u, err
	}
	defer c.close()
	if u.Files, err = c.status(ctx, true); err != nil {
		return u, err
	}
	u.Files = append(u.Files, c.submoduleChanges(ctx)...)
	// The tree's HEAD too: commits made on a detached HEAD there are held by
	// nothing else.
	out, err := c.git(ctx, "log", "--oneline", "--no-decorate", "refs/heads/"+t.Branch, "HEAD",
		"--not", "--exclude="+t.Branch, "--branches", "--remotes")
	if err != nil {
		return u, err
	}
	u.Commits = lines(out)
	return u, nil
}

// Remove takes the tree, its branch and its base away. Unless discard is
// set, it first makes sure nothing would be lost, and returns an
// *UnsavedError, touching nothing, when something would. It returns what
// was thrown away.
func (r *Repo) Remove(ctx context.Context, t Tree, discard bool) (Unsaved, error) {
	u, err := r.Unsaved(ctx, t)
	if err != nil {
		return u, err
	}
	if !u.Empty() && !discard {
		return u, &UnsavedError{Tree: t, Unsaved: u}
	}
	// Checked above: --force only lets git remove submodules and the
	// ignored files the tree was given.
	if _, err := r.git(ctx, "worktree", "remove", "--force", "--force", t.Path); err != nil {
		return u, err
	}
	if _, err := r.git(ctx, "branch", "-D", t.Branch); err != nil {
		return u, err
	}
	_, err = r.git(ctx, "update-ref", "-d", baseRef(t.Agent))
	return u, err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func clip(items []string, n int) []string {
	if len(items) <= n {
		return items
	}
	return append(items[:n:n], fmt.Sprintf("%d more", len(items)-n))
}
