package lifecycle

import (
	"context"
	"errors"
	"fmt"

	"switchboard/internal/tmux"
	"switchboard/profile"
	"switchboard/workspace"
)

// ErrCancelled is an agent whose parent cancelled it: its client is not
// started again when it exits.
var ErrCancelled = errors.New("cancelled")

// Restart starts an agent's client again in its pane, whose program ended
// while the team was up: on the conversation it had where its kind can go
// on with one (resumable), wired as up wires it. The pane keeps its id.
func Restart(ctx context.Context, ws *workspace.Workspace, client *tmux.Client, agent string, wirer Wirer) error {
	session, ok, err := LoadSession(ws)
	if err != nil {
		return err
	}
	seat, seated := session.Agents[agent]
	if !ok || !seated {
		return fmt.Errorf("%s has no pane in the team's session", agent)
	}
	spawned, err := ws.Spawned()
	if err != nil {
		return err
	}
	if spawned[agent].Cancelled != nil {
		return fmt.Errorf("%s: %w", agent, ErrCancelled)
	}
	team, _, err := profile.Team(ws, []string{agent})
	if err != nil {
		return err
	}
	if len(team) != 1 {
		return fmt.Errorf("%s has no profile", agent)
	}
	p := team[0]
	resume := resumable(ws.Store, p)
	if err := newConversation(ws.Store, agent, resume != ""); err != nil {
		return err
	}
	spec, _, err := paneFor(ctx, p, profile.DefaultVars(ws.Root), ws, wirer, spawned[agent], resume)
	if err != nil {
		return err
	}
	if err := client.RespawnSpec(ctx, seat.Pane, spec); err != nil {
		return fmt.Errorf("start %s again: %w", agent, err)
	}
	// Its first process is new: what its commands descend from.
	if err := notePIDs(ctx, client, map[string]*Seat{agent: seat}); err != nil {
		return err
	}
	return UpdateSession(ws, func(s *Session) error {
		if s.Agents[agent] != nil {
			s.Agents[agent].PID = seat.PID
		}
		return nil
	})
}
