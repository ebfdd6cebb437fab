package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"switchboard/mailbox"
)

// errChildExited ends a wait whose agent stopped without answering.
var errChildExited = errors.New("exited")

// errChildCancelled ends a wait whose agent was cancelled.
type errChildCancelled struct{ by, reason string }

func (e errChildCancelled) Error() string {
	if e.reason == "" {
		return "cancelled by " + e.by
	}
	return "cancelled by " + e.by + " (" + e.reason + ")"
}

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
	if !ws.rules.Knows(agent) {
		if ws.folder.HasMailbox(agent) {
			return fmt.Errorf("%s is no longer an agent of this team (closed?); its mail stays in %s", agent, ws.store.AgentDir(agent))
		}
		return notAnAgent(ws.rules, agent, "")
	}
	switch parent, spawned := ws.rules.Parent(agent); {
	case !spawned:
		return usageError("%s was not spawned, so no task of yours waits for its answer: wait is for the helpers you spawn; ask it with `switchboard ask --to %s --title \"...\"`, or see your mail with `switchboard inbox`", agent, agent)
	case parent != ws.agent:
		return usageError("%s answers to %s, not to %s: its response goes to %s's inbox", agent, parent, ws.agent, parent)
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	go watchExit(ctx, ws, agent, stop)
	wait := "for as long as it takes"
	if timeout > 0 {
		wait = "up to " + timeout.String()
	}
	fmt.Fprintf(io.errOut, "waiting %s for the response of %s to %s\n", wait, agent, ws.agent)

	entry, msg, err := ws.store.WaitFor(ctx, ws.agent, func(m *mailbox.Message) bool {
		return m.From == agent && m.Type == mailbox.TypeResponse
	})
	var cancelled errChildCancelled
	switch {
	case errors.Is(context.Cause(ctx), errChildExited):
		return fmt.Errorf("%s exited without sending you a response", agent)
	case errors.As(context.Cause(ctx), &cancelled):
		return fmt.Errorf("%s was %v before it sent you a response", agent, cancelled)
	case errors.Is(err, context.DeadlineExceeded):
		return &codedError{code: exitTimedOut, err: fmt.Errorf("no response from %s within %s", agent, timeout)}
	case err != nil:
		return err
	}
	if _, err := ws.store.MarkRead(ws.agent, entry); err != nil {
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

// watchExit stops the wait when the agent's state turns exited (its pane
// died, its session ended, or it was closed), or when it is cancelled.
func watchExit(ctx context.Context, ws *caller, agent string, stop context.CancelCauseFunc) {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		// After a first look at the inbox: a response there is taken.
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if spawned, err := ws.folder.Spawned(); err == nil {
			if c := spawned[agent].Cancelled; c != nil {
				stop(errChildCancelled{by: c.By, reason: c.Reason})
				return
			}
		}
		if st, ok, _ := ws.store.ReadState(agent); ok && st.State == mailbox.StateExited {
			// A response sent just before the end is still taken: give the
			// master a moment to deliver it.
			select {
			case <-ctx.Done():
			case <-time.After(2 * time.Second):
				stop(errChildExited)
			}
			return
		}
	}
}
