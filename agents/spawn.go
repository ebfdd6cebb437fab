package agents

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"switchboard/mailbox"
	"switchboard/proctree"
	"switchboard/profile"
	"switchboard/tmux"
	"switchboard/workspace"
)

// SpawnOptions say which agent to start at run time, and from what.
type SpawnOptions struct {
	Workspace *workspace.Workspace
	Name      string
	Profile   string
	Parent    string
	Task      string
	// Model, System and Env are given over the profile: its model, more
	// system instructions, more environment.
	Model  string
	System string
	Env    map[string]string
	// Taken reports whether a name is in use by the team already.
	Taken func(name string) bool
	// Wirer wires the agent's hooks, as for up.
	Wirer Wirer
}

// ErrExists is returned when the name of a new agent is taken.
var ErrExists = errors.New("agent name taken")

// ErrNotSpawned is an agent of the rules file, not one spawned at run
// time: it is not closed alone.
var ErrNotSpawned = errors.New("was not spawned at run time")

// Spawn starts one more agent in a new window of the running team: it
// registers the agent (so that the rules and a later up know it), opens its
// pane, and adds its seat to the session. It returns the seat and a note
// when the agent's program is not installed.
func Spawn(ctx context.Context, opts SpawnOptions) (*Seat, string, error) {
	if err := mailbox.ValidateAgentName(opts.Name); err != nil {
		return nil, "", err
	}
	ws := opts.Workspace
	session, up, err := LoadSession(ws)
	if err != nil {
		return nil, "", err
	}
	if !up {
		return nil, "", ErrNotUp
	}
	client := tmux.NewClient(session.Socket, nil)
	if ok, err := client.HasSession(ctx, session.Name); err != nil || !ok {
		return nil, "", ErrNotUp
	}
	if opts.Taken != nil && opts.Taken(opts.Name) {
		return nil, "", fmt.Errorf("%w: %s is already an agent of this team", ErrExists, opts.Name)
	}
	err = ws.UpdateSpawned(func(all map[string]workspace.Spawned) error {
		if _, ok := all[opts.Name]; ok {
			return fmt.Errorf("%w: %s was spawned already", ErrExists, opts.Name)
		}
		all[opts.Name] = workspace.Spawned{Profile: opts.Profile, Parent: opts.Parent, Task: opts.Task, Started: time.Now().UTC(),
			Model: opts.Model, System: opts.System, Env: opts.Env}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	seat, note, err := openSeat(ctx, client, session, ws, opts)
	if err != nil {
		// Nothing runs under the name: give it back.
		_ = ws.UpdateSpawned(func(all map[string]workspace.Spawned) error { delete(all, opts.Name); return nil })
		return nil, "", err
	}
	return seat, note, nil
}

func openSeat(ctx context.Context, client *tmux.Client, session *Session, ws *workspace.Workspace, opts SpawnOptions) (*Seat, string, error) {
	store := ws.Store
	team, _, err := profile.Team(ws, []string{opts.Name})
	if err != nil {
		return nil, "", err
	}
	p := team[0]
	if err := store.Ensure(p.Name); err != nil {
		return nil, "", err
	}
	spec, launch, err := paneFor(p, profile.DefaultVars(ws.Root), ws, opts.Wirer)
	if err != nil {
		return nil, "", err
	}
	if err := newConversation(store, p.Name); err != nil {
		return nil, "", err
	}
	pane, err := client.NewWindow(ctx, session.Name, p.Name, spec)
	if err != nil {
		return nil, "", fmt.Errorf("start %s: %w", p.Name, err)
	}
	seat := &Seat{Pane: pane, Kind: launch.Kind, DisplayName: p.DisplayName, Parent: opts.Parent}
	if err := notePIDs(ctx, client, map[string]*Seat{p.Name: seat}); err != nil {
		client.KillPane(context.WithoutCancel(ctx), pane)
		return nil, "", err
	}
	err = client.SetLabels(ctx, tmux.Labels{Agent: map[string]string{pane: p.Name}, Title: map[string]string{pane: startingTitle(seat)}})
	if err == nil {
		err = UpdateSession(ws, func(s *Session) error { s.Agents[p.Name] = seat; return nil })
	}
	if err != nil {
		client.KillPane(context.WithoutCancel(ctx), pane)
		return nil, "", err
	}
	return seat, launch.Note, nil
}

// Descendants returns the agents spawned under agent, each after its own
// descendants: closing in this order never leaves a child without its
// parent.
func Descendants(spawned map[string]workspace.Spawned, agent string) []string {
	var out []string
	var walk func(string)
	walk = func(parent string) {
		var children []string
		for name, s := range spawned {
			if s.Parent == parent {
				children = append(children, name)
			}
		}
		slices.Sort(children)
		for _, c := range children {
			if c == agent || slices.Contains(out, c) {
				continue // a registry whose parents loop
			}
			walk(c)
			out = append(out, c)
		}
	}
	walk(agent)
	return out
}

// Close closes a spawned agent and, first, every agent spawned under it:
// their panes are killed, their seats and registrations removed. Their
// mailboxes stay. It returns the agents closed, in order.
func Close(ctx context.Context, ws *workspace.Workspace, agent string) ([]string, error) {
	store := ws.Store
	spawned, err := ws.Spawned()
	if err != nil {
		return nil, err
	}
	if _, ok := spawned[agent]; !ok {
		return nil, fmt.Errorf("%s %w, so it cannot be closed alone: the team is stopped as a whole", agent, ErrNotSpawned)
	}
	order := append(Descendants(spawned, agent), agent)
	// The records go first: an agent no longer recorded is not started
	// again by up, whatever happens to its pane below.
	err = ws.UpdateSpawned(func(all map[string]workspace.Spawned) error {
		for _, name := range order {
			delete(all, name)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	session, up, err := LoadSession(ws)
	if err != nil {
		return nil, err
	}
	if up {
		err := UpdateSession(ws, func(s *Session) error {
			for _, name := range order {
				delete(s.Agents, name)
			}
			return nil
		})
		if err != nil && !errors.Is(err, ErrNotUp) {
			return nil, err
		}
		client := tmux.NewClient(session.Socket, nil)
		var panes []string
		for _, name := range order {
			if seat, ok := session.Agents[name]; ok {
				panes = append(panes, seat.Pane)
			}
		}
		leaders := paneLeaders(ctx, client, panes)
		for _, name := range order {
			seat, ok := session.Agents[name]
			if !ok {
				continue
			}
			if err := client.KillPane(context.WithoutCancel(ctx), seat.Pane); err != nil && !errors.Is(err, tmux.ErrNoPane) {
				return nil, fmt.Errorf("close %s: %w", name, err)
			}
		}
		proctree.End(context.WithoutCancel(ctx), leaders, paneGrace)
	}
	for _, name := range order {
		_ = store.WriteState(name, mailbox.AgentState{State: mailbox.StateExited, Since: time.Now().UTC(), Source: mailbox.SourcePane, Detail: "closed"})
	}
	return order, nil
}

// TaskTitle is the title of a task message: its first line, clipped.
func TaskTitle(task string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(task), "\n")
	return mailbox.ClipTitle("Task: " + first)
}
