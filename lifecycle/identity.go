package lifecycle

import (
	"context"
	"os"

	"switchboard/internal/proctree"
	"switchboard/internal/tmux"
	"switchboard/workspace"
)

// notePIDs records the first process of each seat's pane.
func notePIDs(ctx context.Context, c *tmux.Client, seats map[string]*Seat) error {
	panes, err := c.ListPanes(ctx)
	if err != nil {
		return err
	}
	pids := make(map[string]int, len(panes))
	for _, p := range panes {
		pids[p.ID] = p.PID
	}
	for _, seat := range seats {
		seat.PID = pids[seat.Pane]
	}
	return nil
}

// PaneAgent is the agent in whose pane the calling process runs: the team's
// tmux server started the pane, and the caller descends from the pane's
// first process. Such a process is that agent, whatever its flags or
// environment say. ok is false outside the team's panes (the master's
// window, the person's own terminal) and when the team is not up.
//
// A process can leave the pane's tree on purpose (double fork, setsid); the
// rules keep honest and mistaken agents in their lanes, not determined
// forgers (see the trust model, docs/guarantees.md).
func PaneAgent(ws *workspace.Workspace) (agent string, ok bool) {
	s, up, err := LoadSession(ws)
	if err != nil || !up || s.ServerPID == 0 {
		return "", false
	}
	chain := proctree.Ancestors(os.Getpid())
	for i := 1; i < len(chain); i++ {
		if chain[i] != s.ServerPID {
			continue
		}
		for name, seat := range s.Agents {
			if seat.PID != 0 && seat.PID == chain[i-1] {
				return name, true
			}
		}
		return "", false // a pane of the team that is no agent's
	}
	return "", false
}
