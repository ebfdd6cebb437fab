package tmux

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Pane is what one batched list-panes call tells of a pane.
type Pane struct {
	ID         string
	PID        int
	Session    string
	Window     string
	Dead       bool
	DeadStatus *int   // nil until tmux knows it, and for a program killed by a signal
	InMode     bool   // copy mode or another mode: typed keys would not reach the program
	Command    string // the foreground program
	Agent      string // the @agent user option
}

// paneFormat is one line per pane, fields separated by a byte no pane field
// holds.
const paneFormat = "#{pane_id}\x1f#{pane_pid}\x1f#{session_name}\x1f#{window_name}\x1f#{pane_dead}\x1f#{pane_dead_status}\x1f#{pane_in_mode}\x1f#{pane_current_command}\x1f#{@agent}"

// ListPanes lists every pane of the server in one tmux call, however many
// there are: watching 50 agents costs one process, not 50.
func (c *Client) ListPanes(ctx context.Context) ([]Pane, error) {
	out, err := c.command(ctx, "list-panes", "-a", "-F", paneFormat)
	if err != nil {
		return nil, err
	}
	return parsePanes(out)
}

func parsePanes(out string) ([]Pane, error) {
	var panes []Pane
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, "\x1f")
		if len(f) != 9 {
			return nil, fmt.Errorf("list-panes: unexpected line %q", line)
		}
		pid, _ := strconv.Atoi(f[1])
		var status *int
		if n, err := strconv.Atoi(f[5]); err == nil {
			status = &n
		}
		panes = append(panes, Pane{
			ID: f[0], PID: pid, Session: f[2], Window: f[3],
			Dead: f[4] == "1", DeadStatus: status, InMode: f[6] == "1",
			Command: f[7], Agent: f[8],
		})
	}
	return panes, nil
}

// inputLine returns the logical line the cursor is on, wrapped rows joined,
// and whether the pane is in a mode.
func (c *Client) inputLine(ctx context.Context, pane string) (line string, inMode bool, err error) {
	out, err := c.command(ctx, "display-message", "-p", "-t", pane, "#{cursor_y} #{pane_in_mode}")
	if err != nil {
		return "", false, err
	}
	var y, mode int
	if strings.TrimSpace(out) == "" {
		// tmux answers a pane closed meanwhile with empty formats.
		return "", false, fmt.Errorf("pane %s went away: %w", pane, ErrNoPane)
	}
	if _, err := fmt.Sscanf(out, "%d %d", &y, &mode); err != nil {
		return "", false, fmt.Errorf("read cursor of %s: %q: %w", pane, out, err)
	}
	// Rows 0..y joined: the last line is the cursor's row with the rows it
	// wraps from.
	screen, err := c.command(ctx, "capture-pane", "-p", "-J", "-t", pane, "-S", "0", "-E", strconv.Itoa(y))
	if err != nil {
		return "", false, err
	}
	rows := strings.Split(strings.TrimSuffix(screen, "\n"), "\n") // one row per line; the cursor row may be empty
	return rows[len(rows)-1], mode == 1, nil
}

// History reads all a pane printed, from the start of its scrollback: what
// scrolled away when the pane was resized (a layout change) included.
func (c *Client) History(ctx context.Context, pane string) (string, error) {
	return c.command(ctx, "capture-pane", "-p", "-J", "-S", "-", "-t", pane)
}

// screenEnd ends each pane's text in the output of Screens; no screen holds
// the unit separator.
const screenEnd = "\x1fswitchboard-end "

// Screens reads the text of several panes in one tmux call.
func (c *Client) Screens(ctx context.Context, ids []string) (map[string]string, error) {
	screens := make(map[string]string, len(ids))
	if len(ids) == 0 {
		return screens, nil
	}
	var args []string
	for _, id := range ids {
		// The id comes back from tmux's own format: a literal "%3" in a
		// message is padded by tmux's time expansion.
		args = append(args, "capture-pane", "-p", "-t", id, ";", "display-message", "-p", "-t", id, screenEnd+"#{pane_id}", ";")
	}
	out, err := c.command(ctx, args[:len(args)-1]...)
	if err != nil {
		return nil, err
	}
	var text strings.Builder
	for _, line := range strings.SplitAfter(out, "\n") {
		if id, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), screenEnd); ok {
			screens[id] = text.String()
			text.Reset()
			continue
		}
		text.WriteString(line)
	}
	return screens, nil
}
