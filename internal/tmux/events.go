package tmux

import (
	"context"
	"strings"
)

// paneEventHooks are the server's hooks that fire when a pane's program
// ends (kept on screen by remain-on-exit, or not), a pane is killed, a
// window closes (Ctrl-b &) or a session ends.
var paneEventHooks = []string{"pane-died", "pane-exited", "after-kill-pane", "window-unlinked", "session-closed"}

// hookIndex is the slot of each hook switchboard sets, so that setting it
// again replaces its own and leaves any other.
const hookIndex = "[77]"

// SignalOnPaneEvents makes the server signal channel (see WaitFor) each
// time a pane's program ends, a pane or window is killed, or a session
// ends.
func (c *Client) SignalOnPaneEvents(ctx context.Context, channel string) error {
	var args []string
	for _, hook := range paneEventHooks {
		args = append(args, "set-hook", "-g", hook+hookIndex, "wait-for -S "+channel, ";")
	}
	_, err := c.command(ctx, args[:len(args)-1]...)
	return err
}

// WaitFor blocks until channel is signalled, or ctx is done. A signal sent
// while no one waited is kept for the next WaitFor. The waiting tmux client
// sleeps: it costs nothing while it waits.
func (c *Client) WaitFor(ctx context.Context, channel string) error {
	_, err := c.command(ctx, "wait-for", strings.TrimSpace(channel))
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
