package tmux

import (
	"context"
	"errors"
	"sort"
)

// The user options switchboard keeps in tmux: the agent of each pane, the
// text of its border, and the team's line in the status bar.
const (
	optionAgent  = "@agent"
	optionTitle  = "@sb_title"
	optionStatus = "@sb_status"
)

// ShowLabels makes the server draw each pane's title (SetLabels) on its top
// border, and the team's status on the right of the status bar.
func (c *Client) ShowLabels(ctx context.Context) error {
	_, err := c.command(ctx,
		"set-option", "-g", "pane-border-status", "top", ";",
		"set-option", "-g", "pane-border-format", " #{?#{"+optionTitle+"},#{"+optionTitle+"},#{pane_title}} ", ";",
		"set-option", "-g", "status-left-length", "40", ";",
		"set-option", "-g", "status-right-length", "100", ";",
		"set-option", "-g", "status-right", "#{?#{"+optionStatus+"},#{"+optionStatus+"},switchboard} ")
	return err
}

// Labels are what panes and the status bar show.
type Labels struct {
	Agent map[string]string // pane id → the agent it runs
	Title map[string]string // pane id → the text on its border
	// Border is pane id → the style of its border lines ("fg=yellow",
	// "default"), active or not.
	Border map[string]string
	Status string // the team's status, a tmux format; "" leaves it as it is
}

func (l Labels) empty() bool {
	return len(l.Agent) == 0 && len(l.Title) == 0 && len(l.Border) == 0 && l.Status == ""
}

// SetLabels sets labels in one tmux call. A pane gone meanwhile (closed, or
// from a server since restarted) does not keep the others from being set;
// ErrNoPane then says that one was missing.
func (c *Client) SetLabels(ctx context.Context, l Labels) error {
	if l.empty() {
		return nil
	}
	var cmds [][]string
	for _, pane := range sortedKeys(l.Agent) {
		cmds = append(cmds, []string{"set-option", "-p", "-t", pane, optionAgent, l.Agent[pane]})
	}
	for _, pane := range sortedKeys(l.Title) {
		cmds = append(cmds, []string{"set-option", "-p", "-t", pane, optionTitle, l.Title[pane]})
	}
	for _, pane := range sortedKeys(l.Border) {
		cmds = append(cmds, []string{"set-option", "-p", "-t", pane, "pane-border-style", l.Border[pane]},
			[]string{"set-option", "-p", "-t", pane, "pane-active-border-style", l.Border[pane]})
	}
	if l.Status != "" {
		cmds = append(cmds, []string{"set-option", "-g", optionStatus, l.Status})
	}
	if _, err := c.command(ctx, joinCommands(cmds)...); err == nil || !errors.Is(err, ErrNoPane) {
		return err
	}
	// tmux stops a command list at its first error: set one at a time.
	var gone error
	for _, cmd := range cmds {
		_, err := c.command(ctx, cmd...)
		switch {
		case errors.Is(err, ErrNoPane):
			gone = err
		case err != nil:
			return err
		}
	}
	return gone
}

func joinCommands(cmds [][]string) []string {
	var args []string
	for i, cmd := range cmds {
		if i > 0 {
			args = append(args, ";")
		}
		args = append(args, cmd...)
	}
	return args
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
