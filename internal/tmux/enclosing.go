package tmux

import (
	"context"
	"os"
	"strconv"
	"time"
)

// Enclosing is the tmux server the calling process runs in, the one $TMUX
// names: the team's, when up opened the console in its session. Unlike a
// Client it names no socket, so that its commands reach the caller's own
// client: the status line it shows, the window it looks at.
type Enclosing struct{ run Runner }

// EnclosingServer is the server the calling process runs in, and false when
// it runs outside tmux. run nil runs the tmux on PATH.
func EnclosingServer(run Runner) (*Enclosing, bool) {
	if os.Getenv("TMUX") == "" {
		return nil, false
	}
	if run == nil {
		run = ExecRunner{KeepTMUX: true}
	}
	return &Enclosing{run: run}, true
}

// ShowMessage shows text on the caller's status line for d. Every # of it
// is doubled, so that tmux shows it and expands nothing.
func (e *Enclosing) ShowMessage(ctx context.Context, text string, d time.Duration) error {
	_, err := e.run.Run(ctx, "", "display-message", "-d", strconv.FormatInt(d.Milliseconds(), 10), literalFormat(text))
	return err
}

// ShowPane brings a pane before the caller's client: its window, and the
// pane in it.
func (e *Enclosing) ShowPane(ctx context.Context, pane string) error {
	_, err := e.run.Run(ctx, "", "select-window", "-t", pane, ";", "select-pane", "-t", pane)
	return err
}
