package desk

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"switchboard/conversation"
	"switchboard/lifecycle"
	"switchboard/lifecycle/worktree"
	"switchboard/mailbox"
	"switchboard/profile"
)

// tree finds an agent's worktree: known to the rules, or a closed agent's
// whose tree was kept.
func (d *Desk) tree(ctx context.Context, agent string) (*worktree.Repo, worktree.Tree, error) {
	if d.rules == nil {
		return nil, worktree.Tree{}, d.noRules()
	}
	if !d.rules.Knows(agent) && !d.ws.HasMailbox(agent) {
		return nil, worktree.Tree{}, NotAnAgent(d.rules, agent)
	}
	p, err := d.profileOf(agent)
	if err != nil {
		return nil, worktree.Tree{}, err
	}
	return lifecycle.TreeOf(ctx, d.ws, p)
}

// profileOf is the profile an agent runs, or ran, with; the operator has
// none, and so no tree.
func (d *Desk) profileOf(agent string) (*profile.Profile, error) {
	team, _, err := profile.Team(d.ws, []string{agent})
	if err != nil {
		return nil, err
	}
	if len(team) == 0 {
		return nil, fmt.Errorf("%s %w", agent, worktree.ErrNoTree)
	}
	return team[0], nil
}

// Diff is an agent's changes in its worktree against its base, committed
// or not; stat asks for git's summary instead of the patch.
func (d *Desk) Diff(ctx context.Context, agent string, stat bool) (string, error) {
	repo, tree, err := d.tree(ctx, agent)
	if err != nil {
		return "", err
	}
	return repo.Diff(ctx, tree, stat)
}

// TreeSummary is an agent's worktree at a glance.
type TreeSummary struct {
	Branch string `json:"branch"`
	Path   string `json:"path"`
	worktree.Changes
	// Refused says why no git was run in the tree, and so why its changes
	// are not counted: its .git leads elsewhere than the repository's own
	// record of it.
	Refused string `json:"refused,omitempty"`
}

// TreeSummaries are the worktrees of the agents named that have one.
func (d *Desk) TreeSummaries(ctx context.Context, profiles []*profile.Profile) map[string]TreeSummary {
	out := make(map[string]TreeSummary)
	for _, p := range profiles {
		if !p.Worktree {
			continue
		}
		repo, tree, err := lifecycle.TreeOf(ctx, d.ws, p)
		if err != nil {
			continue
		}
		summary := TreeSummary{Branch: tree.Branch, Path: tree.Path}
		summary.Changes, err = repo.Changes(ctx, tree)
		switch {
		case errors.Is(err, worktree.ErrRefused):
			summary.Refused = err.Error()
		case err != nil:
			continue
		}
		out[p.Name] = summary
	}
	return out
}

// mayTend checks that the desk's agent may merge, commit or throw away the
// work in agent's tree: its ancestors and the overseers; once it has left
// the team (closed), its ancestors are no longer known, and only the
// overseers may.
func (d *Desk) mayTend(agent, verb string) error {
	switch {
	case d.rules.Knows(agent) && !d.rules.MayClose(d.agent, agent):
		return &RightError{Msg: fmt.Sprintf("%s may not %s %s: only its ancestors and the overseers may", d.agent, verb, agent)}
	case !d.rules.Knows(agent) && !d.rules.IsOverseer(d.agent):
		return &RightError{Msg: fmt.Sprintf("%s may not %s %s, which has left the team: only the overseers may", d.agent, verb, agent)}
	}
	return nil
}

// MayTendClosedTrees reports whether the desk's agent may merge or throw
// away the tree a closed agent left: the overseers may.
func (d *Desk) MayTendClosedTrees() bool {
	return d.rules != nil && d.rules.IsOverseer(d.agent)
}

// closeKeptTree removes the worktree an agent left when it was closed:
// when it holds nothing unmerged, or whatever it holds with discard.
func (d *Desk) closeKeptTree(ctx context.Context, agent string, discard bool) (lifecycle.Closed, error) {
	p, err := d.profileOf(agent)
	if err != nil {
		return lifecycle.Closed{}, err
	}
	noTree := fmt.Errorf("%s is %w, and has no worktree left", agent, ErrClosed)
	// Who may remove it matters only when there is one.
	if _, _, err := lifecycle.TreeOf(ctx, d.ws, p); noTreeLeft(err) {
		return lifecycle.Closed{}, noTree
	}
	if err := d.mayTend(agent, "remove the worktree of"); err != nil {
		return lifecycle.Closed{}, err
	}
	fate, found := lifecycle.CloseTree(ctx, d.ws, p, discard)
	if !found {
		return lifecycle.Closed{}, noTree
	}
	return lifecycle.Closed{Trees: []lifecycle.TreeFate{fate}}, nil
}

// noTreeLeft reports whether looking for an agent's worktree found there is
// none: none was made, or the workspace is in no git repository at all.
func noTreeLeft(err error) bool {
	return errors.Is(err, worktree.ErrNoTree) || errors.Is(err, worktree.ErrNotRepo)
}

// commitLeft commits what the agent left uncommitted in its tree, unless
// it is at work there; nil when there was nothing to commit.
func (d *Desk) commitLeft(ctx context.Context, repo *worktree.Repo, tree worktree.Tree) (*worktree.Committed, error) {
	left, err := repo.Unsaved(ctx, tree)
	if err != nil || len(left.Files) == 0 {
		return nil, err
	}
	if err := d.notAtWork(ctx, tree.Agent); err != nil {
		return nil, err
	}
	committed, err := repo.Commit(ctx, tree, fmt.Sprintf("Work %s left uncommitted, committed by %s to merge it", tree.Agent, d.agent))
	if err != nil || committed.Commit == "" {
		return nil, err
	}
	return &committed, nil
}

// ErrBusy is an agent at work in its tree, whose files a commit would take
// half-written.
var ErrBusy = errors.New("at work in its worktree")

// notAtWork refuses to commit in the tree of an agent that is working
// there: busy, starting, or at a permission prompt.
func (d *Desk) notAtWork(ctx context.Context, agent string) error {
	if !d.rules.Knows(agent) {
		return nil // closed
	}
	team, err := d.Team(ctx)
	if err != nil {
		return err
	}
	for _, m := range team {
		if m.Name != agent {
			continue
		}
		switch m.State {
		case conversation.Busy, conversation.Starting, conversation.Waiting:
			return fmt.Errorf("%s is %w (%s): ask it to commit its work, or wait till it is idle", agent, ErrBusy, m.State)
		}
	}
	return nil
}

// MergeConflictError is a merge that conflicted and was aborted; the agent
// was mailed the files (unless Mail says why not, or it was closed).
type MergeConflictError struct {
	*worktree.ConflictError
	Agent string
	Mail  error
	// Closed says the agent has left the team: nobody was mailed.
	Closed bool
}

func (e *MergeConflictError) Unwrap() error { return e.ConflictError }

// Merged is what a merge did: the commit made first of what the agent had
// not committed, when that was asked for, and the merge.
type Merged struct {
	worktree.Merged
	Committed *worktree.Committed `json:"committed,omitempty"`
	// Closed says the agent has left the team: its tree stays until it is
	// closed again, which removes it when nothing in it is unmerged.
	Closed bool `json:"closed,omitempty"`
}

// Merge brings an agent's commits into a branch (into; "" is the main
// checkout's), when the desk's agent is one of its ancestors or an
// overseer. With commit, what the agent has not committed is committed
// first, unless the agent is at work; without, a worktree with changes not
// committed is refused. A conflict is aborted, changes nothing, and the
// agent is mailed the conflicting files.
func (d *Desk) Merge(ctx context.Context, agent, into string, commit bool) (Merged, error) {
	repo, tree, err := d.tree(ctx, agent)
	if err != nil {
		return Merged{}, err
	}
	if err := d.mayTend(agent, "merge the work of"); err != nil {
		return Merged{}, err
	}
	out := Merged{Closed: !d.rules.Knows(agent)}
	if commit {
		if out.Committed, err = d.commitLeft(ctx, repo, tree); err != nil {
			return out, err
		}
	}
	out.Merged, err = repo.Merge(ctx, tree, into)
	var conflict *worktree.ConflictError
	if !errors.As(err, &conflict) {
		return out, err
	}
	failed := &MergeConflictError{ConflictError: conflict, Agent: agent, Closed: out.Closed}
	if !out.Closed {
		_, failed.Mail = d.Send(&mailbox.Message{
			To:    []string{agent},
			Title: mailbox.ClipTitle(fmt.Sprintf("Merge into %s conflicts in %d files", conflict.Into, len(conflict.Files))),
			Type:  mailbox.TypeNotification,
			Content: fmt.Sprintf("%s tried to merge your branch %s into %s; it conflicts in:\n\n%s\n\nThe merge was aborted and nothing changed. "+
				"Merge %s into your branch in your worktree (git merge %s), settle the conflicts, commit, and say so.",
				d.agent, tree.Branch, conflict.Into, strings.Join(conflict.Files, "\n"), conflict.Into, conflict.Into),
		})
	}
	return out, failed
}
