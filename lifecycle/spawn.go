package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"switchboard/conversation"
	"switchboard/internal/proctree"
	"switchboard/internal/tmux"
	"switchboard/mailbox"
	"switchboard/profile"
	"switchboard/workspace"
)

// SpawnOptions say which agent to start at run time, and from what.
type SpawnOptions struct {
	Workspace *workspace.Workspace
	// Name is the new agent's; "" is the first of <Profile>-1, -2, ... that
	// no agent has or had, chosen under the registry's lock, so that spawns
	// at once never pick the same.
	Name    string
	Profile string
	Parent  string
	Task    string
	// Model, System and Env are given over the profile: its model, more
	// system instructions, more environment.
	Model  string
	System string
	Env    map[string]string
	// Taken reports whether a name is in use by the team already.
	Taken func(name string) bool
	// Check, when set, has the last word on the name chosen, before it is
	// registered: an error stops the spawn.
	Check func(name string) error
	// Wirer wires the agent's hooks, as for up.
	Wirer Wirer
	// Worktree gives the agent a git worktree of its own, whatever its
	// profile says.
	Worktree bool
}

// Started is an agent Spawn started: its name, its seat, and a note when
// its program is not installed.
type Started struct {
	Name string
	Seat *Seat
	Note string
}

// ErrExists is returned when the name of a new agent is taken.
var ErrExists = errors.New("agent name taken")

// ErrNotSpawned is an agent of the rules file, not one spawned at run
// time: it is not closed alone.
var ErrNotSpawned = errors.New("was not spawned at run time")

// ErrClosedWhileStarting is a spawn whose agent was closed before its pane
// was up: the pane is ended, and nothing runs under the name.
var ErrClosedWhileStarting = errors.New("was closed while it was being spawned")

// Spawn starts one more agent in a new window of the running team: it
// registers the agent (so that the rules and a later up know it), opens its
// pane, and adds its seat to the session.
//
// A close that comes while the pane is being opened wins: Close ends the
// panes it finds of the agent, and Spawn, which looks at the registry once
// its pane is up and labelled, ends its own pane when the agent is no
// longer registered. Whichever comes second sees the first, so no pane is
// left running an agent the team does not list.
func Spawn(ctx context.Context, opts SpawnOptions) (Started, error) {
	if opts.Name != "" {
		if err := mailbox.ValidateAgentName(opts.Name); err != nil {
			return Started{}, err
		}
	}
	ws := opts.Workspace
	session, up, err := LoadSession(ws)
	if err != nil {
		return Started{}, err
	}
	if !up {
		return Started{}, ErrNotUp
	}
	client := tmux.NewClient(session.Socket, nil)
	if ok, err := client.HasSession(ctx, session.Name); err != nil || !ok {
		return Started{}, ErrNotUp
	}
	taken := func(name string) bool { return opts.Taken != nil && opts.Taken(name) }
	if opts.Name != "" && taken(opts.Name) {
		return Started{}, fmt.Errorf("%w: %s is already an agent of this team", ErrExists, opts.Name)
	}
	err = ws.UpdateSpawned(func(all map[string]workspace.Spawned) error {
		if opts.Name == "" {
			opts.Name = freeName(opts.Profile, func(name string) bool {
				_, registered := all[name]
				return registered || taken(name) || ws.HasMailbox(name)
			})
		}
		if _, ok := all[opts.Name]; ok {
			return fmt.Errorf("%w: %s was spawned already", ErrExists, opts.Name)
		}
		if opts.Check != nil {
			if err := opts.Check(opts.Name); err != nil {
				return err
			}
		}
		all[opts.Name] = workspace.Spawned{Profile: opts.Profile, Parent: opts.Parent, Task: opts.Task, Started: time.Now().UTC(),
			Model: opts.Model, System: opts.System, Env: opts.Env, Worktree: opts.Worktree}
		return nil
	})
	if err != nil {
		return Started{}, err
	}
	seat, note, err := openSeat(ctx, client, session, ws, opts)
	if err != nil {
		// Nothing runs under the name: give it back.
		_ = ws.UpdateSpawned(func(all map[string]workspace.Spawned) error { delete(all, opts.Name); return nil })
		return Started{}, err
	}
	if spawned, err := ws.Spawned(); err == nil {
		if _, still := spawned[opts.Name]; !still {
			endSeat(ctx, ws, client, opts.Name, seat)
			return Started{}, fmt.Errorf("%s %w", opts.Name, ErrClosedWhileStarting)
		}
	}
	return Started{Name: opts.Name, Seat: seat, Note: note}, nil
}

// freeName is the first of <from>-1, -2, ... that used does not report:
// a closed agent's mailbox stays, and a new agent must not inherit it.
func freeName(from string, used func(string) bool) string {
	for i := 1; ; i++ {
		suffix := "-" + strconv.Itoa(i)
		name := from + suffix
		if len(name) > 63 {
			name = from[:63-len(suffix)] + suffix
		}
		if !used(name) {
			return name
		}
	}
}

// endSeat ends the pane of an agent closed while it was being spawned, and
// takes its seat out of the session.
func endSeat(ctx context.Context, ws *workspace.Workspace, client *tmux.Client, name string, seat *Seat) {
	ctx = context.WithoutCancel(ctx)
	leaders := paneLeaders(ctx, client, []string{seat.Pane})
	_ = UpdateSession(ws, func(s *Session) error { delete(s.Agents, name); return nil })
	_ = client.KillPane(ctx, seat.Pane)
	proctree.End(ctx, leaders, paneGrace)
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
	spec, launch, err := paneFor(ctx, p, profile.DefaultVars(ws.Root), ws, opts.Wirer, workspace.Spawned{Parent: opts.Parent, Worktree: opts.Worktree}, "")
	if err != nil {
		return nil, "", err
	}
	if err := newConversation(store, p.Name, false); err != nil {
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

// Closed is what a close did: the agents closed, deepest first, and what
// became of their worktrees.
type Closed struct {
	Agents []string   `json:"closed"`
	Trees  []TreeFate `json:"worktrees,omitempty"`
}

// Close closes a spawned agent and, first, every agent spawned under it:
// their panes are killed, their seats and registrations removed. Their
// mailboxes stay. Their worktrees go when they hold nothing of their own
// (or, with discard, whatever they hold); otherwise they stay, with their
// branches.
func Close(ctx context.Context, ws *workspace.Workspace, agent string, discard bool) (Closed, error) {
	store := ws.Store
	spawned, err := ws.Spawned()
	if err != nil {
		return Closed{}, err
	}
	if _, ok := spawned[agent]; !ok {
		return Closed{}, fmt.Errorf("%s %w, so it cannot be closed alone: the team is stopped as a whole", agent, ErrNotSpawned)
	}
	order := append(Descendants(spawned, agent), agent)
	// Their profiles are read while they are still registered: a helper's
	// comes from its registration.
	team, _, err := profile.Team(ws, order)
	if err != nil {
		return Closed{}, err
	}
	// The records go first: an agent no longer recorded is not started
	// again by up, whatever happens to its pane below.
	err = ws.UpdateSpawned(func(all map[string]workspace.Spawned) error {
		for _, name := range order {
			delete(all, name)
		}
		return nil
	})
	if err != nil {
		return Closed{}, err
	}
	session, up, err := LoadSession(ws)
	if err != nil {
		return Closed{}, err
	}
	if up {
		err := UpdateSession(ws, func(s *Session) error {
			for _, name := range order {
				delete(s.Agents, name)
			}
			return nil
		})
		if err != nil && !errors.Is(err, ErrNotUp) {
			return Closed{}, err
		}
		client := tmux.NewClient(session.Socket, nil)
		panes := panesOf(ctx, client, session, order)
		leaders := paneLeaders(ctx, client, slices.Collect(maps.Keys(panes)))
		for pane, name := range panes {
			if err := client.KillPane(context.WithoutCancel(ctx), pane); err != nil && !errors.Is(err, tmux.ErrNoPane) {
				return Closed{}, fmt.Errorf("close %s: %w", name, err)
			}
		}
		proctree.End(context.WithoutCancel(ctx), leaders, paneGrace)
	}
	for _, name := range order {
		_ = conversation.Of(store).SetState(name, conversation.State{State: conversation.Exited, Since: time.Now().UTC(), Source: conversation.SourcePane, Detail: "closed"})
	}
	return Closed{Agents: order, Trees: closeTrees(ctx, ws, team, discard)}, nil
}

// panesOf finds the panes of the agents named, by pane id: their seats in
// the session, and any pane of the session labelled with one of their
// names, or in a window named after one, which a spawn under way has opened
// but not yet seated.
func panesOf(ctx context.Context, client *tmux.Client, session *Session, names []string) map[string]string {
	panes := make(map[string]string)
	for _, name := range names {
		if seat, ok := session.Agents[name]; ok {
			panes[seat.Pane] = name
		}
	}
	listed, _ := client.ListPanes(ctx)
	for _, p := range listed {
		if p.Session != session.Name {
			continue
		}
		switch {
		case slices.Contains(names, p.Agent):
			panes[p.ID] = p.Agent
		case p.Agent == "" && slices.Contains(names, p.Window):
			panes[p.ID] = p.Window
		}
	}
	return panes
}

// TaskTitle is the title of a task message: its first line, clipped.
func TaskTitle(task string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(task), "\n")
	return mailbox.ClipTitle("Task: " + first)
}

// StrayPanes lists the panes of the team's session that are labelled with
// an agent's name but are no agent's seat: a spawn cut short, or a pane
// left by hand. None should run; down ends them with the rest.
func StrayPanes(ctx context.Context, ws *workspace.Workspace) ([]tmux.Pane, error) {
	session, up, err := LoadSession(ws)
	if err != nil || !up {
		return nil, err
	}
	seated := make(map[string]bool, len(session.Agents))
	for _, seat := range session.Agents {
		seated[seat.Pane] = true
	}
	panes, err := tmux.NewClient(session.Socket, nil).ListPanes(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(panes, func(p tmux.Pane) bool {
		return p.Session != session.Name || p.Agent == "" || seated[p.ID]
	}), nil
}
