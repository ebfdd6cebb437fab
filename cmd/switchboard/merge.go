package main

import (
	"context"
	"errors"
	"fmt"

	"switchboard/desk"
	"switchboard/internal/safetext"
	"switchboard/worktree"

	"github.com/spf13/cobra"
)

func newMergeCmd(io *streams, g *globals) *cobra.Command {
	var into string
	cmd := &cobra.Command{
		Use:   "merge AGENT [--into BRANCH]",
		Short: "Bring an agent's commits home: merge its worktree's branch",
		Long: `Merge the branch of an agent's worktree (switchboard/AGENT) into BRANCH,
by default the branch of the repository's main checkout, with a merge commit
(--no-ff), in the checkout that has BRANCH. The agent's tree must have no
uncommitted changes, nor the checkout merged into: commit or stash them
first. On a conflict the merge is aborted, nothing changes, and the agent is
mailed the conflicting files. Its ancestors and the overseers may merge an
agent's work.`,
		Example: `  switchboard merge developer_agent
  switchboard merge developer_agent-1 --into release`,
		Args: args(1, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			return runMerge(cmd.Context(), io, g, a[0], into)
		},
	}
	cmd.Flags().StringVar(&into, "into", "", "the branch to merge into (default: the main checkout's)")
	return cmd
}

func runMerge(ctx context.Context, io *streams, g *globals, agent, into string) error {
	ws, err := openWorkspace(g)
	if err != nil {
		return err
	}
	merged, err := ws.desk().Merge(ctx, agent, into)
	var dirty *worktree.DirtyError
	var conflict *desk.MergeConflictError
	var notOut *worktree.NotCheckedOutError
	switch {
	case errors.As(err, &dirty) && dirty.Agent != "":
		return fmt.Errorf("%w: nothing was merged; ask %s to commit its work, or commit it there yourself (git -C %s add -A && git -C %s commit -m %s), then merge again",
			err, agent, safetext.ShellWord(dirty.Path), safetext.ShellWord(dirty.Path), safetext.ShellWord("Work of "+agent))
	case errors.As(err, &dirty):
		return fmt.Errorf("%w: nothing was merged; commit or stash your changes there first (git -C %s stash), then merge again",
			err, safetext.ShellWord(dirty.Path))
	case errors.As(err, &conflict):
		told := fmt.Sprintf("%s was mailed the files", agent)
		if conflict.Mail != nil {
			told = fmt.Sprintf("%s could not be mailed: %v", agent, conflict.Mail)
		}
		return fmt.Errorf("%w; %s: it merges %s into its branch, settles them, and commits; then merge again", err, told, conflict.Into)
	case errors.As(err, &notOut):
		return fmt.Errorf("%w: check it out in the main checkout first (git switch %s), or give another --into", err, notOut.Branch)
	case err != nil:
		return treeError(ws, agent, err)
	}
	if g.json {
		return writeJSON(io.out, merged)
	}
	fmt.Fprintf(io.out, "merged %d %s of %s into %s: %s\n", merged.Commits, plural(merged.Commits, "commit", "commits"), agent, merged.Into, shortCommit(merged.Commit))
	return nil
}

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}
