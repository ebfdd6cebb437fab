package main

import (
	"context"
	"errors"
	"fmt"

	"switchboard/desk"
	"switchboard/internal/safetext"
	"switchboard/lifecycle/worktree"

	"github.com/spf13/cobra"
)

func newMergeCmd(io *streams, g *globals) *cobra.Command {
	var into string
	var commit bool
	cmd := &cobra.Command{
		Use:   "merge AGENT [--into BRANCH] [--commit]",
		Short: "Bring an agent's commits home: merge its worktree's branch",
		Long: `Merge the branch of an agent's worktree (switchboard/AGENT) into BRANCH,
by default the branch of the repository's main checkout, with a merge commit
(--no-ff), in the checkout that has BRANCH. The agent's tree must have no
uncommitted changes, nor the checkout merged into: commit or stash yours
first. --commit commits what the agent left uncommitted, new files too,
before the merge: for an agent that is idle, stopped or closed. On a
conflict the merge is aborted, nothing changes, and the agent is mailed the
conflicting files. Its ancestors and the overseers may merge an agent's
work; once it is closed, the overseers.

Git runs there with no hook, fsmonitor, filter, external diff or textconv
that the agent's tree or its git folder could name.`,
		Example: `  switchboard merge developer_agent
  switchboard merge developer_agent-1 --into release
  switchboard merge reviewer_agent-1 --commit`,
		Args: args(1, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			return runMerge(cmd.Context(), io, g, a[0], into, commit)
		},
	}
	cmd.Flags().StringVar(&into, "into", "", "the branch to merge into (default: the main checkout's)")
	cmd.Flags().BoolVar(&commit, "commit", false, "first commit everything the agent left uncommitted in its tree")
	return cmd
}

func runMerge(ctx context.Context, io *streams, g *globals, agent, into string, commit bool) error {
	ws, err := openWorkspace(g)
	if err != nil {
		return err
	}
	merged, err := ws.desk().Merge(ctx, agent, into, commit)
	if merged.Committed != nil && !g.json {
		printCommitted(io, agent, *merged.Committed)
	}
	var dirty *worktree.DirtyError
	var conflict *desk.MergeConflictError
	var notOut *worktree.NotCheckedOutError
	switch {
	case errors.As(err, &dirty) && dirty.Agent != "" && merged.Closed:
		return fmt.Errorf("%w: nothing was merged; %s was closed, so commit its work with the merge: %s",
			err, agent, runnable(fmt.Sprintf("`switchboard merge %s --commit`", agent), ws.folder.Binary()))
	case errors.As(err, &dirty) && dirty.Agent != "":
		return fmt.Errorf("%w: nothing was merged; ask %s to commit its work, or, once it is idle, commit it with the merge: %s",
			err, agent, runnable(fmt.Sprintf("`switchboard merge %s --commit`", agent), ws.folder.Binary()))
	case errors.As(err, &dirty):
		return fmt.Errorf("%w: nothing was merged; commit or stash your changes there first (git -C %s stash), then merge again",
			err, safetext.ShellWord(dirty.Path))
	case errors.As(err, &conflict) && conflict.Closed:
		return fmt.Errorf("%w; %s was closed, so nobody settles them in its tree: merge its branch in your checkout yourself (git merge %s), or throw its work away with %s",
			err, agent, worktree.Branch(agent), runnable(fmt.Sprintf("`switchboard close %s --discard`", agent), ws.folder.Binary()))
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
	if merged.Closed {
		fmt.Fprintln(io.out, runnable(fmt.Sprintf("%s was closed; its worktree stays until `switchboard close %s` removes it", agent, agent), ws.folder.Binary()))
	}
	return nil
}

// printCommitted says what a commit made for an agent took.
func printCommitted(io *streams, agent string, c worktree.Committed) {
	fmt.Fprintf(io.out, "committed %d %s %s had left uncommitted: %s\n", len(c.Files), plural(len(c.Files), "file", "files"), agent, shortCommit(c.Commit))
	for _, f := range c.Files {
		fmt.Fprintf(io.out, "  %s\n", safetext.Line(f))
	}
}

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}
