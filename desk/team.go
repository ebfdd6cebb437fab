package desk

import (
	"context"
	"time"

	"switchboard/conversation"
	"switchboard/internal/tmux"
	"switchboard/lifecycle"
	"switchboard/profile"
	"switchboard/rules"
	"switchboard/workspace"
)

// Member is one agent of the team, as the team runs now.
type Member struct {
	Name       string `json:"name"`
	Display    string `json:"display_name"`
	Kind       string `json:"kind"`
	State      string `json:"state"` // down when the team is not up
	ExitStatus *int   `json:"exit_status,omitempty"`
	Pane       string `json:"pane,omitempty"`
	Unread     int    `json:"unread"`
	Urgent     int    `json:"urgent"`
	Parent     string `json:"parent,omitempty"` // for an agent spawned at run time
	// Worktree is its git worktree, for an agent that has one: its branch
	// and its changes against its base.
	Worktree *TreeSummary `json:"worktree,omitempty"`
	// Host runs the agent, in a team across machines.
	Host string `json:"host,omitempty"`
}

// StateUnreachable is the state of an agent of another host that the hub
// has not heard from lately.
const StateUnreachable = "unreachable"

// StateDown is the state of an agent whose team is not up in tmux.
const StateDown = "down"

// StateCancelled is the state of a spawned agent that was cancelled and
// has not exited: it stays so until it is closed.
const StateCancelled = "cancelled"

// Team lists the agents of the rules and those spawned, in the rules'
// order, with their kind, state, pane, unread mail and worktree.
func (d *Desk) Team(ctx context.Context) ([]Member, error) {
	if d.rules == nil {
		return nil, d.noRules()
	}
	team, _, err := profile.Team(d.ws, d.rules.Agents())
	if err != nil {
		return nil, err
	}
	session, up, err := lifecycle.LoadSession(d.ws)
	if err != nil {
		return nil, err
	}
	if up {
		up, _ = tmux.NewClient(session.Socket, nil).HasSession(ctx, session.Name)
	}
	spawned, err := d.ws.Spawned()
	if err != nil {
		return nil, err
	}
	trees := d.TreeSummaries(ctx, team)
	hosts, err := d.hosts()
	if err != nil {
		return nil, err
	}
	members := make([]Member, 0, len(team))
	for _, p := range team {
		m := Member{Name: p.Name, Display: p.DisplayName, Kind: p.Kind, State: StateDown}
		if hosts != nil {
			if remote, ok := hosts.remote(p.Name); ok {
				remote.Display = p.DisplayName
				remote.Parent, _ = d.rules.Parent(p.Name)
				members = append(members, remote)
				continue
			}
			m.Host = hosts.here
		}
		if up {
			if seat, ok := session.Agents[p.Name]; ok {
				m.Pane, m.Kind = seat.Pane, seat.Kind
				m.State = conversation.Starting
				if st, ok, _ := d.book().State(p.Name); ok {
					m.State, m.ExitStatus = st.State, st.ExitStatus
				}
			}
		}
		if sp, ok := spawned[p.Name]; ok && sp.Cancelled != nil && m.State != conversation.Exited && m.State != StateDown {
			m.State = StateCancelled
		}
		if up && m.State != conversation.Exited && d.overBudgetMark(p.Name) != "" {
			m.State = StateOverBudget
		}
		m.Unread, m.Urgent, _ = d.store().Counts(p.Name)
		m.Parent, _ = d.rules.Parent(p.Name)
		if t, ok := trees[p.Name]; ok {
			m.Worktree = &t
		}
		members = append(members, m)
	}
	return members, nil
}

// Graph is the team as its rules shape it: who may send to whom, and the
// pairs a forbidden entry blocks.
func (d *Desk) Graph() (rules.Graph, error) {
	if d.rules == nil {
		return rules.Graph{}, d.noRules()
	}
	return d.rules.Graph(), nil
}

// teamHosts is where a team across machines runs its agents.
type teamHosts struct {
	here   string
	hosted map[string]bool
	hub    map[string]workspace.HubMember
}

// hosts reads where the team's agents run; nil when the workspace joins no
// hub.
func (d *Desk) hosts() (*teamHosts, error) {
	host, joined, err := d.ws.ReadHubHost()
	if err != nil || !joined {
		return nil, err
	}
	hosted, err := profile.Hosted(d.ws)
	if err != nil {
		return nil, err
	}
	h := &teamHosts{here: host.Host, hosted: hosted, hub: make(map[string]workspace.HubMember)}
	if team, ok, err := d.ws.ReadHubTeam(); err == nil && ok {
		stale := team.Stale(time.Now())
		for _, m := range team.Members {
			// Not heard of lately: the hub, or this host's master, is away.
			m.Reachable = m.Reachable && !stale
			h.hub[m.Agent] = m
		}
	}
	return h, nil
}

// remote is an agent of another host as the hub last showed it; ok is
// false for an agent of this host.
func (h *teamHosts) remote(agent string) (Member, bool) {
	if h.hosted[agent] {
		return Member{}, false
	}
	m := Member{Name: agent, Kind: "-", State: StateUnreachable}
	if hm, ok := h.hub[agent]; ok {
		m.Host = hm.Host
		// An agent whose host stopped on purpose left; one whose host
		// went quiet is unreachable.
		if hm.Reachable || hm.State == conversation.Left {
			m.State = hm.State
		}
	}
	return m, true
}
