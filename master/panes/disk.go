package panes

import (
	"iter"

	"switchboard/conversation"
	"switchboard/lifecycle"
)

// What a look reads of, and writes to, each agent's files: its state, its
// inbox, its alert. Each is read again only when its file changed.

// readAlerts are the alerts whose interrupt has been read: the border may
// forget them.
func (p *Panes) readAlerts(alerts map[string]*alert) map[string]*alert {
	read := make(map[string]*alert)
	for name, a := range alerts {
		if !p.store.IsUnread(name, a.file) {
			read[name] = a
		}
	}
	return read
}

// hookedStates are the states the agents say themselves, by agent: what
// their hooks last wrote, or their client's registry says, the newer of
// the two.
func (p *Panes) hookedStates(ps *pass) map[string]conversation.State {
	hooked := make(map[string]conversation.State)
	for name := range ps.session.Agents {
		if st, ok := p.readState(name); ok && (st.Source == conversation.SourceHook || st.Source == conversation.SourceClient) {
			hooked[name] = st
		}
		if st, ok := ps.clients[name]; ok {
			hooked[name] = clientWord(hooked[name], st)
		}
	}
	return hooked
}

// storedState is what an agent's state file held.
type storedState struct {
	state conversation.State
	ok    bool // there was one
}

// readState reads an agent's state file, unless it is as it was when last
// read: each look reads every agent's.
func (p *Panes) readState(agent string) (conversation.State, bool) {
	got, _ := p.stateFiles.Get(p.book.StatePath(agent), func() (storedState, error) {
		st, ok, err := p.book.State(agent)
		return storedState{state: st, ok: ok}, err
	})
	return got.state, got.ok
}

// mailCounts are each agent's unread and urgent unread messages, each
// inbox listed again only when it changed.
func (p *Panes) mailCounts(session *lifecycle.Session) map[string][2]int {
	mail := make(map[string][2]int, len(session.Agents))
	for name := range session.Agents {
		mail[name] = p.inboxCount(name)
	}
	return mail
}

// inboxCount is an agent's unread and urgent unread messages, its inbox
// listed again only when it changed.
func (p *Panes) inboxCount(agent string) [2]int {
	mail, _ := p.inboxCounts.Get(p.store.InboxDir(agent), func() ([2]int, error) {
		n, urgent, err := p.store.Counts(agent)
		return [2]int{n, urgent}, err
	})
	return mail
}

// forgetGone drops what was read of agents no longer among those named.
func (p *Panes) forgetGone(names iter.Seq[string]) {
	keep := make(map[string]bool)
	for name := range names {
		keep[p.book.StatePath(name)] = true
		keep[p.store.InboxDir(name)] = true
	}
	p.stateFiles.Forget(func(path string) bool { return keep[path] })
	p.inboxCounts.Forget(func(path string) bool { return keep[path] })
	for name := range p.turnLogs {
		if !keep[p.book.StatePath(name)] {
			delete(p.turnLogs, name)
		}
	}
}

// stateWrite is a state the screen, the pane's death or the client's
// registry gave an agent, to be written to its state file.
type stateWrite struct {
	agent string
	state conversation.State
}

// writeStates writes what the screens and registries said, unless a hook of
// the agent spoke meanwhile: hooks have the last word, but on a pane that
// died, or against the client's own newer word.
func (p *Panes) writeStates(writes []stateWrite) {
	for _, w := range writes {
		cur, ok := p.readState(w.agent)
		// A hook that spoke meanwhile has the last word; a hook's word the
		// client's newer one replaces does not.
		hookSpoke := ok && cur.Source == conversation.SourceHook && !(w.state.Source == conversation.SourceClient && w.state.Since.After(cur.Since))
		if hookSpoke && w.state.State != conversation.Exited {
			p.mu.Lock()
			if v := p.viewOf(w.agent); v.state == w.state {
				v.state = cur
			}
			p.mu.Unlock()
			continue
		}
		if err := p.book.SetState(w.agent, w.state); err != nil {
			p.logf("cannot write the state of %s: %v", w.agent, err)
		}
	}
}
