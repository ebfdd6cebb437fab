package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"switchboard/internal/tmux"
	"switchboard/lifecycle"
)

func newAttachCmd(io *streams, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:     "attach",
		Short:   "Attach to the team's tmux session",
		Long:    "Attach this terminal to the running team. Detach with Ctrl-b d; the team goes on.",
		Example: `  switchboard attach`,
		Args:    args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			// The team's session needs no rules: a broken rules file
			// keeps no one from looking at the team.
			ws, rulesErr, err := openReading(g)
			if err != nil {
				return err
			}
			warnBrokenRules(io, ws, rulesErr)
			session, ok, err := lifecycle.LoadSession(ws.folder)
			if err != nil {
				return err
			}
			if ok {
				if up, _ := tmux.NewClient(session.Socket, nil).HasSession(cmd.Context(), session.Name); up {
					if !io.terminal {
						return fmt.Errorf("attach needs a terminal; from a script, look with: tmux -L %s capture-pane -p -t %s", session.Socket, session.Name)
					}
					return attach(io, session.Socket, session.Name, ws.folder)
				}
			}
			return lifecycle.ErrNotUp
		},
	}
}
