package desk

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"switchboard/agents"
	"switchboard/mailbox"
	"switchboard/profile"
	"switchboard/worktree"
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
	team, _, err := profile.Team(d.ws, []string{agent})
	if err != nil {
		return nil, worktree.Tree{}, err
	}
	return agents.TreeOf(ctx, d.ws, team[0])
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
}

// TreeSummaries are the worktrees of the agents named that have one.
func (d *Desk) TreeSummaries(ctx context.Context, profiles []*profile.Profile) map[string]TreeSummary {
	out := make(map[string]TreeSummary)
	for _, p := range profiles {
		if !p.Worktree {
			continue
		}
		repo, tree, err := agents.TreeOf(ctx, d.ws, p)
		if err != nil {
			continue
		}
		changes, err := repo.Changes(ctx, tree)
		if err != nil {
			continue
		}
		out[p.Name] = TreeSummary{Branch: tree.Branch, Path: tree.Path, Changes: changes}
	}
	return out
}

// MergeConflictError is a merge that conflicted and was aborted; the agent
// was mailed the files (unless Mail says why not).
type MergeConflictError struct {
	*worktree.ConflictError
	Agent string
	Mail  error
}

func (e *MergeConflictError) Unwrap() error { return e.ConflictError }

// Merge brings an agent's commits into a branch (into; "" is the main
// checkout's), when the desk's agent is one of its ancestors or an
// overseer. A worktree with changes not committed is refused; a conflict is
// aborted, changes nothing, and the agent is mailed the conflicting files.
func (d *Desk) Merge(ctx context.Context, agent, into string) (worktree.Merged, error) {
	repo, tree, err := d.tree(ctx, agent)
	if err != nil {
		return worktree.Merged{}, err
	}
	switch {
	case d.rules.Knows(agent) && !d.rules.MayClose(d.agent, agent):
		return worktree.Merged{}, &RightError{Msg: fmt.Sprintf("%s may not merge the work of %s: only its ancestors and the overseers may", d.agent, agent)}
	case !d.rules.Knows(agent) && !d.rules.IsOverseer(d.agent):
		return worktree.Merged{}, &RightError{Msg: fmt.Sprintf("%s may not merge the work of %s, which has left the team: only the overseers may", d.agent, agent)}
	}
	merged, err := repo.Merge(ctx, tree, into)
	var conflict *worktree.ConflictError
	if !errors.As(err, &conflict) {
		return merged, err
	}
	out := &MergeConflictError{ConflictError: conflict, Agent: agent}
	if d.rules.Knows(agent) {
		_, out.Mail = d.Send(&mailbox.Message{
			To:    []string{agent},
			Title: mailbox.ClipTitle(fmt.Sprintf("Merge into %s conflicts in %d files", conflict.Into, len(conflict.Files))),
			Type:  mailbox.TypeNotification,
			Content: fmt.Sprintf("%s tried to merge your branch %s into %s; it conflicts in:\n\n%s\n\nThe merge was aborted and nothing changed. "+
				"Merge %s into your branch in your worktree (git merge %s), settle the conflicts, commit, and say so.",
				d.agent, tree.Branch, conflict.Into, strings.Join(conflict.Files, "\n"), conflict.Into, conflict.Into),
		})
	}
	return merged, out
}
