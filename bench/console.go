package bench

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"switchboard/internal/tmux"
	"switchboard/internal/watch"
)

// consoleFrames is how many times `top --once` is timed.
const consoleFrames = 5

// ConsoleResult is the console (switchboard top) beside the team at rest:
// its CPU over the rest window, in percent of one core, and the median
// time `top --once` takes to read the team and draw one frame, beside the
// median start of /bin/true.
type ConsoleResult struct {
	Rest       float64       `json:"rest_percent"`
	Frame      time.Duration `json:"frame_ns"`
	FrameFloor time.Duration `json:"frame_floor_ns"`
}

// startConsole opens switchboard top in a window of the team's session, and
// returns its process once it shows the team.
func (t *teamRun) startConsole(ctx context.Context) (pid int, err error) {
	s, err := t.session()
	if err != nil {
		return 0, err
	}
	c := tmux.NewClient(t.socket, nil)
	pane, err := c.NewWindow(ctx, s.Name, "console", tmux.PaneSpec{Dir: t.root, Command: []string{t.cfg.Binary, "top", "--no-notify"},
		Env: map[string]string{"SWITCHBOARD_ROOT": t.root, "SWITCHBOARD_AGENT": "", "HOME": t.root, "TERM": "xterm-256color"}})
	if err != nil {
		return 0, fmt.Errorf("open the console: %w", err)
	}
	var screen string
	if !watch.Until(ctx, 50*time.Millisecond, 30*time.Second, func() bool {
		screen, _ = c.History(ctx, pane)
		return strings.Contains(screen, t.name(1))
	}) {
		return 0, fmt.Errorf("the console did not show the team within 30 s; its pane shows:\n%s", screen)
	}
	panes, err := c.ListPanes(ctx)
	if err != nil {
		return 0, err
	}
	for _, p := range panes {
		if p.ID == pane {
			return p.PID, nil
		}
	}
	return 0, fmt.Errorf("the console's pane %s went away", pane)
}

// consoleFrame times `top --once` beside /bin/true, each consoleFrames
// times in turns, and returns the medians.
func (t *teamRun) consoleFrame(ctx context.Context) (frame, floor time.Duration, err error) {
	var frames, floors []time.Duration
	for range consoleFrames {
		start := time.Now()
		if out, err := t.switchboard(ctx, "top", "--once", "--width", "160"); err != nil {
			return 0, 0, fmt.Errorf("top --once: %w\n%s", err, out)
		}
		frames = append(frames, time.Since(start))
		start = time.Now()
		if err := exec.CommandContext(ctx, "true").Run(); err != nil {
			return 0, 0, err
		}
		floors = append(floors, time.Since(start))
	}
	return median(frames), median(floors), nil
}
