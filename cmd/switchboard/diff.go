package main

import (
	"context"
	"errors"
	"fmt"

	"switchboard/lifecycle/worktree"

	"github.com/spf13/cobra"
)

func newDiffCmd(io *streams, g *globals) *cobra.Command {
	var stat bool
	cmd := &cobra.Command{
		Use:   "diff AGENT [--stat]",
		Short: "An agent's changes in its git worktree against where it started",
		Long: `Show what an agent with a worktree (worktree: true in its profile, or
spawn --worktree) changed: its commits and its uncommitted changes together,
against the commit its tree started from (or was last merged at), then the
new files git does not track yet. --stat gives git's summary instead of the
patch.

Git runs there with no fsmonitor, filter, external diff or textconv that
the agent's tree or its git folder could name; a tree whose .git no longer
leads to the repository's own record of it is refused.`,
		Example: `  switchboard diff developer_agent
  switchboard diff developer_agent --stat`,
		Args: args(1, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			return runDiff(cmd.Context(), io, g, a[0], stat)
		},
	}
	cmd.Flags().BoolVar(&stat, "stat", false, "a summary of the files changed instead of the patch")
	return cmd
}

func runDiff(ctx context.Context, io *streams, g *globals, agent string, stat bool) error {
	ws, _, err := openReading(g)
	if err != nil {
		return err
	}
	diff, err := ws.desk().Diff(ctx, agent, stat)
	if err != nil {
		return treeError(ws, agent, err)
	}
	if g.json {
		return writeJSON(io.out, map[string]string{"agent": agent, "diff": diff})
	}
	_, err = fmt.Fprint(io.out, diff)
	return err
}

// treeError says what to do about an agent without a worktree, or one git
// could not find.
func treeError(ws *caller, agent string, err error) error {
	switch {
	case errors.Is(err, worktree.ErrNoTree):
		return fmt.Errorf("%w: give its profile worktree: true (agents/%s.yaml), or spawn it with --worktree", err, agent)
	case errors.Is(err, worktree.ErrRefused):
		return fmt.Errorf("%w; git there would run what the tree's owner chose, so switchboard runs none: see what it holds yourself", err)
	}
	return deskError(ws, err)
}
