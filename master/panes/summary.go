package panes

import (
	"maps"
	"slices"

	"switchboard/bulletin"
	"switchboard/conversation"
	"switchboard/mailbox"
)

// SetTeam tells the panes side which agents the rules name, for the
// bulletin's summary when no team runs in tmux.
func (p *Panes) SetTeam(names []string) {
	team := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == mailbox.Operator })
	p.mu.Lock()
	p.team = team
	p.mu.Unlock()
}

// summarizeTeam reads the state each agent's hooks wrote and its unread
// counts: the bulletin's view of a team whose agents were started by hand.
func (p *Panes) summarizeTeam() map[string]bulletin.AgentSummary {
	p.mu.Lock()
	team := p.team
	p.mu.Unlock()
	p.forgetGone(slices.Values(team))
	out := make(map[string]bulletin.AgentSummary, len(team))
	for _, name := range team {
		st, _ := p.readState(name)
		mail := p.inboxCount(name)
		out[name] = bulletin.AgentSummary{State: st.State, Unread: mail[0], Urgent: mail[1]}
	}
	return out
}

// publishSummary writes the agents' states and counts, and the list of
// those not exited, into the bulletin when they differ from what it last
// wrote: a quiet team costs no writes.
func (p *Panes) publishSummary(agents map[string]bulletin.AgentSummary) {
	if maps.Equal(agents, p.published) {
		return
	}
	active := []string{}
	for _, name := range slices.Sorted(maps.Keys(agents)) {
		if s := agents[name].State; s != "" && s != conversation.Exited {
			active = append(active, name)
		}
	}
	err := bulletin.Of(p.ws).Update(func(b *bulletin.Bulletin) error {
		b.Agents = agents
		b.ActiveAgents = active
		return nil
	})
	if err != nil {
		if !p.bulletinFailing {
			p.logf("cannot update the bulletin: %v; trying again as the team changes", err)
			p.bulletinFailing = true
		}
		return
	}
	if p.bulletinFailing {
		p.logf("the bulletin is updated again")
		p.bulletinFailing = false
	}
	p.published = agents
}
