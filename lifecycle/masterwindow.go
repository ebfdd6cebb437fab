package lifecycle

import (
	"context"
	"strings"

	"switchboard/internal/tmux"
)

// MasterWindow is the window of a team's session that the master runs in
// (or that follows the log of one already running).
const MasterWindow = "master"

// MasterExit is a master whose program ended in its window.
type MasterExit struct {
	Status *int     // nil when tmux does not know it (yet): a signal ended it, or tmux has not seen it end
	Output []string // the last lines it printed
}

// masterLines is how many of the last lines of an ended master are kept:
// its error is the last of them.
const masterLines = 5

// MasterEnded reports whether the program of the session's master window
// has ended, and what it printed last. A session without that window has
// no master that ended.
func MasterEnded(ctx context.Context, client *tmux.Client, session string) (MasterExit, bool, error) {
	panes, err := client.ListPanes(ctx)
	if err != nil {
		return MasterExit{}, false, err
	}
	for _, p := range panes {
		if p.Session != session || p.Window != MasterWindow || !p.Dead {
			continue
		}
		history, err := client.History(ctx, p.ID)
		if err != nil {
			return MasterExit{}, false, err
		}
		return MasterExit{Status: p.DeadStatus, Output: lastLines(history, masterLines)}, true, nil
	}
	return MasterExit{}, false, nil
}

// lastLines returns up to n non-blank lines from the bottom of a screen,
// in order, without tmux's own "Pane is dead" line.
func lastLines(screen string, n int) []string {
	var lines []string
	for _, line := range strings.Split(screen, "\n") {
		line = strings.TrimRight(line, " ")
		if line == "" || strings.HasPrefix(line, "Pane is dead") {
			continue
		}
		lines = append(lines, line)
	}
	return lines[max(0, len(lines)-n):]
}
