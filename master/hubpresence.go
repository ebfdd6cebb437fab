package master

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"time"

	"switchboard/bulletin"
	"switchboard/hub"
	"switchboard/workspace"
)

// present keeps this host's agents and their states on the hub, and the
// whole team, as the hub shows it, in the workspace for the commands that
// list the team.
func (h *hubLink) present(ctx context.Context, conn *hub.Conn) {
	claimed := h.agents()
	tick := time.NewTicker(hub.Heartbeat)
	defer tick.Stop()
	for {
		if agents := slices.Sorted(maps.Keys(h.refresh())); !slices.Equal(agents, claimed) {
			if err := conn.SetAgents(ctx, agents); err != nil {
				h.logf("cannot tell the hub this host's agents (%v): %v", agents, err)
			} else {
				claimed = agents
			}
		}
		spawned, _ := h.ws.Spawned()
		states := make([]hub.AgentState, 0, len(claimed))
		for _, a := range claimed {
			st, ok, _ := h.ws.Store.ReadState(a)
			state := "down"
			if ok {
				state = st.State
			}
			sp := spawned[a]
			states = append(states, hub.AgentState{Agent: a, State: state, Profile: sp.Profile, Parent: sp.Parent})
		}
		if err := conn.Announce(ctx, states); err != nil && ctx.Err() == nil {
			h.logf("cannot tell the hub the states of this host's agents: %v", err)
		}
		if members, err := conn.Team(ctx); err == nil {
			h.writeTeam(members)
		}
		h.mirrorState(ctx, conn)
		h.mirrorBoard(ctx, conn)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// mirrorState copies the team's shared state from the hub into this host's
// bulletin, which the agents' hooks show.
func (h *hubLink) mirrorState(ctx context.Context, conn *hub.Conn) {
	shared, err := conn.State(ctx)
	if err != nil {
		return
	}
	store := h.ws.Bulletin()
	local, err := store.ReadState()
	if err != nil {
		return
	}
	for key, value := range shared {
		if !json.Valid(value) || bytes.Equal(local[key], value) {
			continue
		}
		if err := store.SetState(key, value); err != nil {
			h.logf("cannot keep the shared value %q of the team here: %v", key, err)
		}
	}
}

// mirrorBoard copies the team's board (status, phase, the overseers'
// warnings) from the hub into this host's bulletin, when it changed.
func (h *hubLink) mirrorBoard(ctx context.Context, conn *hub.Conn) {
	data, _, err := conn.Get(ctx, bulletin.BoardKey)
	if err != nil {
		return // none set yet, or the hub away: the bulletin stays
	}
	var board bulletin.Board
	if json.Unmarshal(data, &board) != nil {
		return
	}
	store := h.ws.Bulletin()
	if b, err := store.Read(); err != nil || !b.WouldChange(board) {
		return
	}
	if err := store.Update(func(b *bulletin.Bulletin) error { b.SetBoard(board); return nil }); err != nil {
		h.logf("cannot show the team's board in this host's bulletin: %v", err)
	}
}

// writeTeam keeps the team as the hub shows it, and reloads the rules when
// the agents other hosts spawned changed: the rules know those too.
func (h *hubLink) writeTeam(members []hub.Member) {
	team := workspace.HubTeam{Host: h.opts.Host, At: time.Now().UTC()}
	for _, m := range members {
		team.Members = append(team.Members, workspace.HubMember{Agent: m.Agent, Host: m.Host, State: m.State, Reachable: m.Reachable,
			Profile: m.Profile, Parent: m.Parent})
	}
	if err := h.ws.WriteHubTeam(team); err != nil {
		h.logf("cannot keep the team's hosts: %v", err)
		return
	}
	before, err := h.ws.HubSpawned()
	elsewhere := team.SpawnedElsewhere()
	same := func(a, b workspace.Spawned) bool { return a.Profile == b.Profile && a.Parent == b.Parent }
	if err == nil && maps.EqualFunc(before, elsewhere, same) {
		return
	}
	if err := h.ws.WriteHubSpawned(elsewhere); err != nil {
		h.logf("cannot keep the agents other hosts spawned: %v", err)
		return
	}
	if h.teamChanged != nil {
		h.teamChanged()
	}
}
