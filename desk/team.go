package desk

import (
	"context"

	"switchboard/agents"
	"switchboard/mailbox"
	"switchboard/profile"
	"switchboard/rules"
	"switchboard/tmux"
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
}

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
	session, up, err := agents.LoadSession(d.ws)
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
	members := make([]Member, 0, len(team))
	for _, p := range team {
		m := Member{Name: p.Name, Display: p.DisplayName, Kind: p.Kind, State: StateDown}
		if up {
			if seat, ok := session.Agents[p.Name]; ok {
				m.Pane, m.Kind = seat.Pane, seat.Kind
				m.State = mailbox.StateStarting
				if st, ok, _ := d.store().ReadState(p.Name); ok {
					m.State, m.ExitStatus = st.State, st.ExitStatus
				}
			}
		}
		if sp, ok := spawned[p.Name]; ok && sp.Cancelled != nil && m.State != mailbox.StateExited && m.State != StateDown {
			m.State = StateCancelled
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
