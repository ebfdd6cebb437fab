package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"switchboard/desk"

	"github.com/spf13/cobra"
)

func newWaitCmd(io *streams, g *globals) *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "wait AGENT [--timeout D]",
		Short: "Wait for a spawned agent's response, and print it",
		Long: `Wait until AGENT sends you a response (a message of type response), mark it
read and print it: the result of the task you gave it with spawn. Other mail
stays unread. Exits 4 when --timeout passes first (0, the default, waits
forever) and 1 when the agent exits, is closed or is cancelled without
answering.`,
		Example: `  switchboard wait reviewer_agent-1
  switchboard wait tester-2 --timeout 30m --json`,
		Args: args(1, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			return runWait(cmd.Context(), io, g, a[0], timeout)
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "how long to wait; 0 waits forever")
	return cmd
}

func runWait(ctx context.Context, io *streams, g *globals, agent string, timeout time.Duration) error {
	if timeout < 0 {
		return usageError("--timeout is %s; give a positive duration, or 0 to wait forever", timeout)
	}
	ws, err := openWorkspace(g)
	if err != nil {
		return err
	}
	d := ws.desk()
	wait := "for as long as it takes"
	if timeout > 0 {
		wait = "up to " + timeout.String()
	}
	msg, err := d.Wait(ctx, agent, timeout, func() {
		fmt.Fprintf(io.errOut, "waiting %s for the response of %s to %s\n", wait, agent, ws.agent)
	})
	var unknown *desk.UnknownAgentError
	switch {
	case errors.As(err, &unknown):
		return notAnAgent(ws.rules, agent, "")
	case errors.Is(err, desk.ErrNotSpawned):
		return usageError("%v: wait is for the helpers you spawn; ask it with `switchboard ask --to %s --title \"...\"`, or see your mail with `switchboard inbox`", err, agent)
	case errors.Is(err, desk.ErrNotYourHelper):
		return usageError("%v", err)
	case errors.Is(err, desk.ErrNoAnswer):
		return timedOutError(err)
	case errors.Is(err, desk.ErrCannotAnswer):
		return refusedError(fmt.Errorf("%w; waiting would never end: close it with `switchboard close %s`", err, agent))
	case err != nil:
		return err
	}
	if g.json {
		return writeJSON(io.out, msg)
	}
	fmt.Fprintf(io.out, "%s: %s\n", msg.From, msg.Title)
	if msg.Content != "" {
		fmt.Fprintf(io.out, "\n%s\n", msg.Content)
	}
	return nil
}
