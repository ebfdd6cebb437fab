package worktree

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Committed is a commit made of what a tree had not committed.
type Committed struct {
	Commit string   `json:"commit"`
	Files  []string `json:"files"` // git status --short lines of what it took
}

// unfinished are the files git keeps in a worktree's folder while a merge,
// cherry-pick, revert or rebase waits to be finished, and what each is.
var unfinished = []struct{ file, what string }{
	{"MERGE_HEAD", "merge"}, {"CHERRY_PICK_HEAD", "cherry-pick"}, {"REVERT_HEAD", "revert"},
	{"rebase-merge", "rebase"}, {"rebase-apply", "rebase"},
}

// Commit commits everything the tree holds and has not committed, new
// files too, on the tree's HEAD (its branch, or the commit it is detached
// at), with message. It returns a zero Committed when there is nothing to
// commit. No hook runs: the tree's owner could have written them.
func (r *Repo) Commit(ctx context.Context, t Tree, message string) (Committed, error) {
	c, err := r.tree(t)
	if err != nil {
		return Committed{}, err
	}
	defer c.close()
	if c.head != "ref: refs/heads/"+t.Branch && !c.detached() {
		return Committed{}, fmt.Errorf("the worktree of %s at %s is on %s, not on its branch %s", t.Agent, t.Path, strings.TrimPrefix(c.head, "ref: "), t.Branch)
	}
	for _, u := range unfinished {
		if _, err := os.Lstat(filepath.Join(c.admin, u.file)); err == nil {
			return Committed{}, fmt.Errorf("the worktree of %s at %s is in the middle of a git %s, which a commit would not finish", t.Agent, t.Path, u.what)
		}
	}
	files, err := c.status(ctx, true)
	if err != nil || len(files) == 0 {
		return Committed{}, err
	}
	if _, err := c.git(ctx, "add", "--all"); err != nil {
		return Committed{}, err
	}
	if _, err := c.git(ctx, "commit", "--quiet", "--no-verify", "-m", message); err != nil {
		return Committed{}, err
	}
	head, err := c.git(ctx, "rev-parse", "HEAD")
	if err != nil {
		return Committed{}, err
	}
	head = strings.TrimSpace(head)
	if c.detached() {
		// The commit moved the HEAD of the git folder made for the command;
		// the tree's own moves from where it was, unless it moved since.
		if _, err := r.git(ctx, "update-ref", "--no-deref", "worktrees/"+c.id+"/HEAD", head, c.head); err != nil {
			return Committed{}, err
		}
	}
	return Committed{Commit: head, Files: files}, nil
}
