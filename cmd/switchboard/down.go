package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"switchboard/desk"
	"switchboard/workspace"
)

func newDownCmd(io *streams, g *globals) *cobra.Command {
	var purge bool
	cmd := &cobra.Command{
		Use:   "down [--purge]",
		Short: "Stop the master and the team's tmux session; mail stays",
		Long: `Stop the master process and the team's tmux session. Every message stays in
mailboxes/, read or unread; switchboard up brings the team back with it.
--purge then deletes the workspace folder, for the folder of a demo (up
--demo) only.`,
		Example: `  switchboard down
  switchboard down --purge --root /tmp/switchboard-demo-123`,
		Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDown(cmd.Context(), io, g, purge)
		},
	}
	cmd.Flags().BoolVar(&purge, "purge", false, "after stopping, delete the workspace folder (a demo's only)")
	return cmd
}

func runDown(ctx context.Context, io *streams, g *globals, purge bool) error {
	// down typed in a pane of the team is hung up on with the rest of the
	// team; it finishes first.
	signal.Ignore(syscall.SIGHUP)
	ws, _, err := openReading(g)
	if err != nil {
		return err
	}
	if _, err := os.Stat(ws.folder.DemoMarker()); purge && err != nil {
		return usageError("--purge deletes only the folder of a demo (up --demo), and %s is not one: nothing was stopped; its mail is yours to keep or delete", ws.root)
	}
	doomed := ws.root
	stopped, err := ws.desk().Down(ctx, func() {
		if purge {
			doomed = moveAside(ws.root)
		}
	})
	switch {
	case errors.Is(err, desk.ErrNoRight):
		return refusedError(fmt.Errorf("%w; outside the team's panes, run `switchboard down --as operator`", err))
	case errors.Is(err, workspace.ErrMasterStillRunning):
		return fmt.Errorf("%w; stop it with `kill -9 %d`", err, stopped.MasterPID)
	case err != nil:
		return err
	}
	if stopped.MasterPID != 0 {
		fmt.Fprintf(io.out, "stopped the master (pid %d)\n", stopped.MasterPID)
	}
	if stopped.Session != "" {
		fmt.Fprintf(io.out, "stopped tmux session %q\n", stopped.Session)
	}
	if stopped == (desk.Stopped{}) {
		fmt.Fprintln(io.out, "nothing was running")
	}
	if purge {
		if err := os.RemoveAll(doomed); err != nil {
			return fmt.Errorf("delete the demo folder %s: %w", ws.root, err)
		}
		fmt.Fprintf(io.out, "deleted the demo folder %s\n", ws.root)
		return nil
	}
	fmt.Fprintf(io.out, "mail is kept in %s\n", ws.store.Dir)
	return nil
}

// moveAside renames a folder that is to be deleted to a hidden name beside
// it, and returns where it now is: gone from its name at once, before its
// session ends, so that a person attached to the team is told that it was
// deleted, not that its mail is kept. Where it cannot be renamed, it stays
// where it is until it is deleted.
func moveAside(dir string) string {
	aside := filepath.Join(filepath.Dir(dir), fmt.Sprintf(".%s.deleting-%d", filepath.Base(dir), os.Getpid()))
	if err := os.Rename(dir, aside); err != nil {
		return dir
	}
	return aside
}
