package agents

import (
	"context"
	"slices"
	"time"

	"switchboard/proctree"
	"switchboard/tmux"
)

// paneGrace is how long the processes of a closed pane get after each
// signal before the next, stronger one.
const paneGrace = time.Second

// StopTeam stops the team's tmux server and every process its panes
// started, also those that outlive the hangup tmux sends (see proctree).
func StopTeam(ctx context.Context, client *tmux.Client) error {
	procs := paneProcesses(ctx, client, nil)
	err := client.KillServer(ctx)
	proctree.End(context.WithoutCancel(ctx), procs, paneGrace)
	return err
}

// paneProcesses lists the processes of the panes named (every pane when
// panes is nil), read before the panes go: afterwards only they knew.
func paneProcesses(ctx context.Context, client *tmux.Client, panes []string) []int {
	list, err := client.ListPanes(ctx)
	if err != nil {
		return nil // no server: no panes
	}
	var procs []int
	for _, p := range list {
		if panes != nil && !slices.Contains(panes, p.ID) {
			continue
		}
		if !p.Dead {
			procs = append(procs, proctree.Session(p.PID)...)
		}
	}
	return procs
}
