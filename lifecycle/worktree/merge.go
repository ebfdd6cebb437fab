package worktree

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// DirtyError is a checkout with changes not committed, which a merge will
// not touch.
type DirtyError struct {
	Path  string
	Files []string
	// Agent is set when the checkout is the agent's tree, not the one
	// merged into.
	Agent string
}

func (e *DirtyError) Error() string {
	return fmt.Sprintf("%s has %d uncommitted %s (%s)", e.Path, len(e.Files), plural(len(e.Files), "change", "changes"), strings.Join(clip(e.Files, 5), "; "))
}

// ConflictError is a merge that conflicted and was aborted: both branches
// are as they were.
type ConflictError struct {
	Into  string
	Files []string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("merging into %s conflicts in %s; the merge was aborted and nothing changed", e.Into, strings.Join(e.Files, ", "))
}

// NotCheckedOutError is a branch to merge into that no checkout has.
type NotCheckedOutError struct {
	Branch string
	Root   string
}

func (e *NotCheckedOutError) Error() string {
	return fmt.Sprintf("branch %s is not checked out in any worktree of %s, and a merge is made in a checkout", e.Branch, e.Root)
}

// Merged is a merge made.
type Merged struct {
	Into    string `json:"into"`
	Commit  string `json:"commit"`
	Commits int    `json:"commits"` // the agent's commits it brought
}

// Merge brings the tree's commits into the branch into ("" is the branch of
// the main checkout) with a merge commit, in the checkout that has it. A
// tree or a checkout with changes not committed is refused; a conflict is
// aborted. Afterwards the tree's changes are counted from what was merged.
func (r *Repo) Merge(ctx context.Context, t Tree, into string) (Merged, error) {
	tree, err := r.tree(t)
	if err != nil {
		return Merged{}, err
	}
	defer tree.close()
	if err := tree.dirty(ctx, true); err != nil {
		var d *DirtyError
		if errors.As(err, &d) {
			d.Agent = t.Agent
		}
		return Merged{}, err
	}
	if into == "" {
		out, err := r.git(ctx, "symbolic-ref", "--quiet", "--short", "HEAD")
		if err != nil {
			return Merged{}, fmt.Errorf("the checkout at %s is on no branch to merge into (a detached HEAD): %w", r.Root, err)
		}
		into = strings.TrimSpace(out)
	}
	if into == t.Branch {
		return Merged{}, fmt.Errorf("cannot merge %s into itself", into)
	}
	at, err := r.checkedOut(ctx, into)
	if err != nil {
		return Merged{}, err
	}
	if at == "" {
		return Merged{}, &NotCheckedOutError{Branch: into, Root: r.Root}
	}
	target, err := r.checkoutAt(at)
	if err != nil {
		return Merged{}, err
	}
	defer target.close()
	if err := target.dirty(ctx, false); err != nil {
		return Merged{}, err
	}
	tip, err := tree.git(ctx, "rev-parse", "HEAD")
	if err != nil {
		return Merged{}, err
	}
	tip = strings.TrimSpace(tip)
	count, err := target.git(ctx, "rev-list", "--count", tip, "--not", "HEAD")
	if err != nil {
		return Merged{}, err
	}
	n := 0
	fmt.Sscan(count, &n)
	msg := fmt.Sprintf("Merge %s: the work of agent %s", t.Branch, t.Agent)
	if _, err := target.git(ctx, "merge", "--no-ff", "--no-edit", "-m", msg, tip); err != nil {
		out, _ := target.git(ctx, "diff", "--name-only", "--diff-filter=U")
		if files := lines(out); len(files) > 0 {
			_, abortErr := target.git(context.WithoutCancel(ctx), "merge", "--abort")
			if abortErr != nil {
				return Merged{}, fmt.Errorf("merge conflicted in %s and could not be aborted: %w", strings.Join(files, ", "), abortErr)
			}
			return Merged{}, &ConflictError{Into: into, Files: files}
		}
		return Merged{}, err
	}
	head, err := target.git(ctx, "rev-parse", "HEAD")
	if err != nil {
		return Merged{}, err
	}
	if _, err := r.git(ctx, "update-ref", baseRef(t.Agent), tip); err != nil {
		return Merged{}, err
	}
	return Merged{Into: into, Commit: strings.TrimSpace(head), Commits: n}, nil
}

// dirty refuses a checkout with changes not committed. In the agent's
// tree a new file counts too: it would not be merged. In the checkout
// merged into it does not: a merge that would write it is refused by git.
func (c *checkout) dirty(ctx context.Context, untracked bool) error {
	files, err := c.status(ctx, untracked)
	if err != nil {
		return err
	}
	if len(files) > 0 {
		return &DirtyError{Path: c.dir, Files: files}
	}
	return nil
}

// status is git's short status of the checkout: its files changed and not
// committed, and its new files when untracked is set. In a linked
// worktree a submodule counts by the commit it is at, not by what its
// files hold: git would look at those by running git inside it, in a git
// folder of the agent's (Unsaved looks at them without that).
func (c *checkout) status(ctx context.Context, untracked bool) ([]string, error) {
	args := []string{"status", "--short", "--untracked-files=no"}
	if untracked {
		args[2] = "--untracked-files=all"
	}
	if c.private != "" {
		args = append(args, "--ignore-submodules=dirty")
	}
	out, err := c.git(ctx, args...)
	return lines(out), err
}
