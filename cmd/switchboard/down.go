package main

import (
	"context"
	"errors"
	"fmt"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"switchboard/agents"
	"switchboard/mailbox"
	"switchboard/master"
	"switchboard/tmux"
)

func newDownCmd(io *streams, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "down",
		Short: "Stop the master and the team's tmux session; mail stays",
		Long: `Stop the master process and the team's tmux session. Every message stays in
mailboxes/, read or unread; switchboard up brings the team back with it.`,
		Example: `  switchboard down`,
		Args:    args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDown(cmd.Context(), io, g)
		},
	}
}

func runDown(ctx context.Context, io *streams, g *globals) error {
	// down typed in a pane of the team is hung up on with the rest of the
	// team; it finishes first.
	signal.Ignore(syscall.SIGHUP)
	ws, rulesErr, err := openOwnMailbox(g)
	if err != nil {
		return err
	}
	if rulesErr != nil && ws.agent != mailbox.Operator {
		return refusedError(fmt.Errorf("%w; with rules that do not load, only the person at the keyboard may stop the team: outside the team's panes, run `switchboard down --as operator`", rulesErr))
	}
	if ws.agent != mailbox.Operator && !ws.rules.IsOverseer(ws.agent) {
		reportAttempt(ws.folder, ws.rules, ws.agent, "tried to stop the team")
		return refusedError(fmt.Errorf("%s may not stop the team: only oversight agents (%s) and the person at the keyboard may (the attempt is logged); outside the team's panes, run `switchboard down --as operator`", ws.agent, overseers(ws)))
	}
	stopped := false
	pid, err := master.Stop(ctx, ws.folder, 10*time.Second)
	if errors.Is(err, master.ErrStillRunning) {
		return fmt.Errorf("%w; stop it with `kill -9 %d`", err, pid)
	}
	if err != nil {
		return err
	}
	if pid != 0 {
		fmt.Fprintf(io.out, "stopped the master (pid %d)\n", pid)
		stopped = true
	}
	session, ok, err := agents.LoadSession(ws.folder)
	if err != nil {
		return err
	}
	if ok {
		client := tmux.NewClient(session.Socket, nil)
		if up, _ := client.HasSession(ctx, session.Name); up {
			if err := agents.StopTeam(ctx, client); err != nil {
				var runErr *tmux.RunError
				if !errors.As(err, &runErr) {
					return err
				}
			}
			fmt.Fprintf(io.out, "stopped tmux session %q\n", session.Name)
			stopped = true
		}
	}
	if !stopped {
		fmt.Fprintln(io.out, "nothing was running")
	}
	fmt.Fprintf(io.out, "mail is kept in %s\n", ws.store.Dir)
	return nil
}
