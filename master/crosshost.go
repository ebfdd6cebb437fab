package master

import (
	"context"
	"strings"

	"switchboard/mailbox"
	"switchboard/master/link"
	"switchboard/profile"
)

// The master's side of a team across machines: its Link (Options.Link)
// carries copies between hosts, and the master routes to it and delivers
// from it as it does on one host.

// startLink joins the team and keeps the link up until ctx is done, or
// stop. A hub that refuses this host stops the start; one out of reach is
// joined later.
func (m *Master) startLink(ctx context.Context) (stop func(), err error) {
	m.refusedCopies = m.store.HubRefused() // once the store keeps its temporary files apart
	return m.link.Start(ctx, link.Env{Workspace: m.ws, Logf: m.logf, RulesChanged: m.work.markRules})
}

// remote reports whether agent runs on another host of the team.
func (m *Master) remote(agent string) bool { return m.link != nil && m.link.Remote(agent) }

// statesChanged tells the link, if any, that an agent's state file
// changed.
func (m *Master) statesChanged() {
	if m.link != nil {
		m.link.StatesChanged()
	}
}

// linkArrivals is the channel of copies from other hosts; nil, which never
// delivers, without a link.
func (m *Master) linkArrivals() <-chan link.Arrival {
	if m.link == nil {
		return nil
	}
	return m.link.Arrivals()
}

// linkNotes is the channel of the link's notices for the overseers; nil
// without a link.
func (m *Master) linkNotes() <-chan link.Note {
	if m.link == nil {
		return nil
	}
	return m.link.Notes()
}

// tellOfLink tells the overseers a notice of the link, once for its key
// while the master runs: a host that floods is told of once, not once a
// copy.
func (m *Master) tellOfLink(n link.Note) {
	if m.toldOfLink[n.Key] {
		return
	}
	m.toldOfLink[n.Key] = true
	if told := m.tellOverseers(n.Key, n.Title, n.Content, m.now().UTC()); len(told) > 0 {
		m.logf("%s; told %s", n.Title, strings.Join(told, ", "))
	}
}

// hostedHere tells which agents of the rules run on this host: all of them
// on one machine; in a team across machines, the operator and the agents
// whose profiles are here or that were spawned here.
func (m *Master) hostedHere() (func(agent string) bool, error) {
	if m.link == nil {
		return func(string) bool { return true }, nil
	}
	hosted, err := profile.Hosted(m.ws)
	if err != nil {
		return nil, err
	}
	return func(agent string) bool { return agent == mailbox.Operator || hosted[agent] }, nil
}
