package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"switchboard/agents"
	"switchboard/mailbox"
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
	parent, spawned := ws.rules.Parent(agent)
	if !spawned {
		if !ws.rules.Knows(agent) {
			return notAnAgent(ws.rules, agent, "")
		}
		return fmt.Errorf("%s was not spawned at run time, so it cannot be closed alone: the team is stopped as a whole, by an overseer or the person, with `switchboard down`", agent)
	}
	if !ws.rules.MayClose(ws.agent, agent) {
		return refusedError(fmt.Errorf("%s may not close %s: only its ancestors and the overseers may", ws.agent, agent))
	}
	closed, err := agents.Close(ctx, ws.folder, agent)
	if err != nil {
		return err
	}
	if g.json {
		if err := writeJSON(io.out, map[string]any{"closed": closed}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(io.out, "closed %s\n", strings.Join(closed, ", "))
	}
	if parent == ws.agent || !ws.rules.Knows(parent) {
		return nil
	}
	notice := &mailbox.Message{To: []string{parent}, Title: mailbox.ClipTitle("Closed: " + agent), Type: mailbox.TypeNotification}
	if len(closed) > 1 {
		notice.Content = fmt.Sprintf("%s closed %s and the agents spawned under it: %s.", ws.agent, agent, strings.Join(closed[:len(closed)-1], ", "))
	} else {
		notice.Content = fmt.Sprintf("%s closed %s.", ws.agent, agent)
	}
	if err := post(io, ws, notice); err != nil {
		fmt.Fprintf(io.errOut, "%s was not told: %v\n", parent, err)
	}
	return nil
}
