package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"switchboard/agents"
	"switchboard/mailbox"
	"switchboard/tmux"
)

// agentRow is one line of `switchboard agents`, and its JSON form.
type agentRow struct {
	Name       string `json:"name"`
	Display    string `json:"display_name"`
	Kind       string `json:"kind"`
	State      string `json:"state"`
	ExitStatus *int   `json:"exit_status,omitempty"`
	Pane       string `json:"pane,omitempty"`
	Unread     int    `json:"unread"`
	Urgent     int    `json:"urgent"`
}

func newAgentsCmd(io *streams, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "agents",
		Short: "The team: name, kind, state, pane, unread and urgent mail",
		Long: `List the agents of the rules with their kind, state (starting, idle, busy,
waiting, interrupted, exited), tmux pane and unread mail. States come from the
agents' hooks, from their panes, or "down" when the team is not up.`,
		Example: `  switchboard agents
  switchboard agents --json`,
		Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runAgents(cmd.Context(), io, g)
		},
	}
}

func runAgents(ctx context.Context, io *streams, g *globals) error {
	ws, err := openWorkspace(g)
	if err != nil {
		return err
	}
	team, _, err := agents.Team(ws.root, ws.rules.Agents())
	if err != nil {
		return err
	}
	session, up, err := agents.LoadSession(ws.store)
	if err != nil {
		return err
	}
	if up {
		up, _ = tmux.NewClient(session.Socket, nil).HasSession(ctx, session.Name)
	}
	rows := make([]agentRow, 0, len(team))
	for _, p := range team {
		row := agentRow{Name: p.Name, Display: p.DisplayName, Kind: p.Kind, State: "down"}
		if up {
			if seat, ok := session.Agents[p.Name]; ok {
				row.Pane, row.Kind = seat.Pane, seat.Kind
				row.State = mailbox.StateStarting
				if st, ok, _ := ws.store.ReadState(p.Name); ok {
					row.State, row.ExitStatus = st.State, st.ExitStatus
				}
			}
		}
		row.Unread, row.Urgent, _ = ws.store.Counts(p.Name)
		rows = append(rows, row)
	}
	if g.json {
		return writeJSON(io.out, rows)
	}
	tw := tabwriter.NewWriter(io.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tSTATE\tPANE\tUNREAD\tURGENT")
	for _, r := range rows {
		state := r.State
		if r.ExitStatus != nil {
			state = fmt.Sprintf("%s (%d)", state, *r.ExitStatus)
		}
		pane := r.Pane
		if pane == "" {
			pane = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\n", r.Name, r.Kind, state, pane, r.Unread, r.Urgent)
	}
	return tw.Flush()
}
