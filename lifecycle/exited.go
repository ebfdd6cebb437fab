package lifecycle

import (
	"context"
	"slices"
	"strings"
	"time"

	"switchboard/internal/tmux"
	"switchboard/internal/watch"
)

// Exited is an agent whose program ended soon after its pane started: a typo
// in its command, a bad flag, a program that cannot run here.
type Exited struct {
	Agent  string
	Status *int     // nil when a signal ended it
	Output []string // the first lines it printed
}

// exitedLines is how many lines of an exited agent's screen are kept.
const exitedLines = 3

// EarlyExits watches the session's agent panes for grace after they started
// and returns the agents whose program has ended by then, in name order.
func EarlyExits(ctx context.Context, client *tmux.Client, session *Session, grace time.Duration) ([]Exited, error) {
	if err := watch.Sleep(ctx, time.Until(session.Started.Add(grace))); err != nil {
		return nil, err
	}
	dead, err := deadSeats(ctx, client, session)
	if err != nil || len(dead) == 0 {
		return nil, err
	}
	exited := make([]Exited, 0, len(dead))
	for _, p := range dead {
		history, err := client.History(ctx, p.ID)
		if err != nil {
			return nil, err
		}
		exited = append(exited, Exited{Agent: p.Agent, Status: p.DeadStatus, Output: firstLines(history, exitedLines)})
	}
	slices.SortFunc(exited, func(a, b Exited) int { return strings.Compare(a.Agent, b.Agent) })
	return exited, nil
}

// deadSeats lists the session's agent panes whose program has ended.
func deadSeats(ctx context.Context, client *tmux.Client, session *Session) ([]tmux.Pane, error) {
	panes, err := client.ListPanes(ctx)
	if err != nil {
		return nil, err
	}
	var dead []tmux.Pane
	for _, p := range panes {
		seat, ok := session.Agents[p.Agent]
		if ok && seat.Pane == p.ID && p.Dead {
			dead = append(dead, p)
		}
	}
	return dead, nil
}

// firstLines returns up to n non-blank lines from the top of a screen,
// without tmux's own "Pane is dead" line.
func firstLines(screen string, n int) []string {
	var lines []string
	for _, line := range strings.Split(screen, "\n") {
		line = strings.TrimRight(line, " ")
		if line == "" || strings.HasPrefix(line, "Pane is dead") {
			continue
		}
		if lines = append(lines, line); len(lines) == n {
			break
		}
	}
	return lines
}
