package panes

import (
	"switchboard/agents"
	"switchboard/internal/clientinbox"
	"switchboard/mailbox"
	"switchboard/profile"
)

// A client that keeps a registry of its sessions (Claude Code) says there
// whether it is idle, busy or waiting on a permission prompt: the master
// reads it beside the agent's hooks, and the newer of the two says the
// agent's state. Its hooks and its entry change together mostly; the
// entry also covers a turn no hook marks (a turn its inbox started before
// the hooks of an older client ran, a prompt the Notification hook missed).

// clientStatus maps a registry status to an agent state.
var clientStatus = map[string]string{
	clientinbox.StatusIdle:    mailbox.StateIdle,
	clientinbox.StatusBusy:    mailbox.StateBusy,
	clientinbox.StatusWaiting: mailbox.StateWaiting,
}

// clientRecord is an agent's client record as last read.
type clientRecord struct {
	rec clientinbox.Record
	ok  bool
}

// readClients reads, for each agent whose kind of client keeps a session
// registry, the session its client recorded (its inbox, by session id) and
// the state its registry entry gives. Each file is read again only when it
// changed; the registry is searched only for a session not found before.
func (p *Panes) readClients(session *agents.Session) (inboxes map[string]string, states map[string]mailbox.AgentState) {
	inboxes = make(map[string]string)
	states = make(map[string]mailbox.AgentState)
	for name, seat := range session.Agents {
		if seat.Kind != profile.KindClaude {
			continue
		}
		path := p.store.ClientRecordPath(name)
		got, _ := p.clientRecords.Get(path, func() (clientRecord, error) {
			rec, ok, err := clientinbox.ReadRecord(path)
			return clientRecord{rec: rec, ok: ok}, err
		})
		if !got.ok {
			continue
		}
		inboxes[name] = got.rec.SessionID
		if st, ok := p.clientState(name, seat.Pane, got.rec); ok {
			states[name] = st
		}
	}
	return inboxes, states
}

// clientState is what the registry entry of the agent's session says, when
// the session runs in the agent's pane.
func (p *Panes) clientState(agent, pane string, rec clientinbox.Record) (mailbox.AgentState, bool) {
	s, known := p.sessions[agent]
	if !known || s.SessionID != rec.SessionID {
		found, err := rec.Session()
		if err != nil || !found.InPane(pane) {
			delete(p.sessions, agent)
			return mailbox.AgentState{}, false
		}
		s = found
		p.sessions[agent] = s
	}
	now, _ := p.clientEntries.Get(s.EntryPath(), func() (clientinbox.Session, error) { return s.Current() })
	state, ok := clientStatus[now.Status]
	if now.SessionID != rec.SessionID || !ok {
		return mailbox.AgentState{}, false
	}
	return mailbox.AgentState{State: state, Since: now.Changed.UTC(), Source: mailbox.SourceClient}, true
}

// newer is the state of the two that was said last; a says it on a tie.
func newer(a, b mailbox.AgentState) mailbox.AgentState {
	if b.Since.After(a.Since) {
		return b
	}
	return a
}
