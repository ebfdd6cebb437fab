package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"switchboard/desk"

	"github.com/spf13/cobra"
)

func newCloseCmd(io *streams, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "close AGENT",
		Short: "Close a spawned agent's pane, and first those of every agent spawned under it",
		Long: `Close an agent started with switchboard spawn. The agents it spawned, and
theirs, are closed first: cancelling a task cancels the work it started. Their
mailboxes stay; up no longer starts them. The closed agent's parent is told,
unless it is the one closing. Its ancestors and the overseers (and the
operator) may close an agent; others are refused with exit 3.`,
		Example: `  switchboard close reviewer_agent-1`,
		Args:    args(1, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			return runClose(cmd.Context(), io, g, a[0])
		},
	}
}

func runClose(ctx context.Context, io *streams, g *globals, agent string) error {
	ws, err := openWorkspace(g)
	if err != nil {
		return err
	}
	closed, err := ws.desk().Close(ctx, agent)
	var notTold *desk.ParentNotToldError
	switch {
	case errors.Is(err, desk.ErrNotSpawned):
		return fmt.Errorf("%w, by an overseer or the person, with `switchboard down`", err)
	case errors.As(err, &notTold):
		fmt.Fprintln(io.errOut, err)
	case err != nil:
		return deskError(ws, err)
	}
	if g.json {
		return writeJSON(io.out, map[string]any{"closed": closed})
	}
	fmt.Fprintf(io.out, "closed %s\n", strings.Join(closed, ", "))
	return nil
}
