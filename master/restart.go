package master

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"switchboard/hooks"
	"switchboard/internal/tmux"
	"switchboard/lifecycle"
	"switchboard/master/panes"
)

// restartClient starts an agent's client again in its pane, wired as up
// wired the team (with or without the MCP server, as its session says).
func (m *Master) restartClient(ctx context.Context, c *tmux.Client, agent string) error {
	session, ok, err := lifecycle.LoadSession(m.ws)
	if err != nil {
		return fmt.Errorf("read the team's session: %w", err)
	}
	if !ok {
		return fmt.Errorf("the team has no session")
	}
	err = lifecycle.Restart(ctx, m.ws, c, agent, hooks.Wirer{Workspace: m.ws, NoMCP: session.NoMCP})
	if errors.Is(err, lifecycle.ErrCancelled) {
		return panes.ErrNotRestarted
	}
	return err
}

// crashLoop tells the overseers that an agent's client kept ending and is
// not started again, with its last lines and what to do.
func (m *Master) crashLoop(agent, why string, lines []string) {
	at := m.now().UTC()
	var b strings.Builder
	fmt.Fprintf(&b, "The client of %s ended again (%s), after being started again several times within ten minutes: it is not started again.\n", agent, why)
	if len(lines) > 0 {
		b.WriteString("\nIts last lines:\n")
		for _, line := range lines {
			b.WriteString("  " + line + "\n")
		}
	}
	fmt.Fprintf(&b, "\nLook at its pane (switchboard attach), fix what it says, then start the team again (switchboard down, then switchboard up).\n")
	key, title := fmt.Sprintf("crash-loop/%s/%d", agent, at.UnixNano()), fmt.Sprintf("DOWN: %s keeps exiting (%s)", agent, why)
	m.tellOverseers(key, title, b.String(), at)
	m.notifyPerson(key, title, b.String())
}
