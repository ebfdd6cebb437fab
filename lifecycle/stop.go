package lifecycle

import (
	"context"
	"slices"
	"time"

	"switchboard/internal/proctree"
	"switchboard/internal/tmux"
)

// paneGrace is how long the processes of a closed pane get after each
// signal before the next, stronger one.
const paneGrace = time.Second

// StopTeam stops the team's tmux server and every process its panes
// started, also those that outlive the hangup tmux sends (see proctree).
func StopTeam(ctx context.Context, client *tmux.Client) error {
	leaders := paneLeaders(ctx, client, nil)
	err := client.KillServer(ctx)
	proctree.End(context.WithoutCancel(ctx), leaders, paneGrace)
	return err
}

// paneLeaders lists the first processes of the panes named (every pane when
// panes is nil), each the leader of the session of all its pane runs; read
// before the panes go: afterwards only tmux knew them.
func paneLeaders(ctx context.Context, client *tmux.Client, panes []string) []int {
	list, err := client.ListPanes(ctx)
	if err != nil {
		return nil // no server: no panes
	}
	var leaders []int
	for _, p := range list {
		if !p.Dead && (panes == nil || slices.Contains(panes, p.ID)) {
			leaders = append(leaders, p.PID)
		}
	}
	return leaders
}
