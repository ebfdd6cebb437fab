package panes

import (
	"maps"
	"slices"
	"time"

	"switchboard/internal/watch"
	"switchboard/lifecycle"
	"switchboard/mailbox"
)

// freshSession is how long before the master's start a session counts as
// just brought up (up starts the session, then the master in it).
const freshSession = 30 * time.Second

// loadSession (re)reads mailboxes/session.json when it changed. A new
// session is a team brought up again: each agent is told of its unread mail.
// Only the panes' loop calls it, so it reads the disk without the lock and
// takes the lock to swap what it found in. It reports whether a session is
// loaded, and whether it is another than before (or none, where one was).
func (p *Panes) loadSession() (loaded, other bool) {
	stamp := watch.FileStamp(p.ws.SessionFile())
	p.mu.Lock()
	old, known := p.session, stamp == p.stamp
	p.stamp = stamp
	p.mu.Unlock()
	if known {
		return old != nil, false
	}
	s, ok, err := lifecycle.LoadSession(p.ws)
	if err != nil {
		p.logf("%v", err)
	}
	if !ok || err != nil {
		p.mu.Lock()
		p.session, p.client = nil, nil
		p.mu.Unlock()
		return false, old != nil
	}
	if old != nil && old.Socket == s.Socket && old.Name == s.Name && old.ServerPID == s.ServerPID && old.Started.Equal(s.Started) {
		// The same session with seats added or removed (spawn, close):
		// what is known of the others, and their pending notices, stays.
		p.mu.Lock()
		p.session = s
		for name := range p.views {
			if _, ok := s.Agents[name]; !ok {
				delete(p.views, name)
			}
		}
		p.mu.Unlock()
		for _, line := range seatChanges(old, s) {
			p.logf("%s", line)
		}
		return true, false
	}
	// A team just brought up is told of the mail waiting for it. A master
	// restarted under a running team is not: it would repeat what the
	// agents were told already.
	waiting := make(map[string][]announcement)
	if s.Started.After(p.started.Add(-freshSession)) {
		for name := range s.Agents {
			waiting[name] = p.unreadAnnouncements(name)
		}
	}
	p.mu.Lock()
	oldViews := p.views
	p.session, p.client = s, p.newTmux(s.Socket)
	p.views = make(map[string]*view)
	p.status = ""
	for name := range s.Agents {
		// Announced while the inboxes were listed: kept, once.
		pending := waiting[name]
		if v, ok := oldViews[name]; ok {
			for _, a := range v.pending {
				if !slices.ContainsFunc(pending, func(b announcement) bool { return b.file == a.file }) {
					pending = append(pending, a)
				}
			}
		}
		p.viewOf(name).pending = pending
	}
	p.mu.Unlock()
	p.logf("team in tmux session %q (socket %s): %d panes", s.Name, s.Socket, len(s.Agents))
	return true, true
}

// unreadAnnouncements lists an agent's unread mail that is announced by
// typing, so that a team brought up again hears of what waits for it. A
// file the master did not deliver is never announced.
func (p *Panes) unreadAnnouncements(agent string) []announcement {
	entries, err := p.store.List(agent, mailbox.Unread)
	if err != nil {
		return nil
	}
	v := p.store.NewVoucher()
	defer v.Close()
	var out []announcement
	for _, e := range entries {
		if !typedPriority(e.Priority) {
			continue
		}
		msg, err := mailbox.Load(e.Path)
		if err != nil || !v.Vouches(agent, e.Name, msg) {
			continue
		}
		out = append(out, announcement{seq: msg.Seq, id: msg.ID, from: msg.From, title: msg.Title, file: e.Name})
	}
	return out
}

// seatChanges says in words who joined the session and who left it:
// "tester_agent-1 joined under reviewer_agent (pane %7)", "tester_agent-1
// left".
func seatChanges(old, now *lifecycle.Session) []string {
	var lines []string
	for _, name := range slices.Sorted(maps.Keys(now.Agents)) {
		if _, was := old.Agents[name]; was {
			continue
		}
		seat := now.Agents[name]
		line := name + " joined"
		if seat.Parent != "" {
			line += " under " + seat.Parent
		}
		lines = append(lines, line+" (pane "+seat.Pane+")")
	}
	for _, name := range slices.Sorted(maps.Keys(old.Agents)) {
		if _, is := now.Agents[name]; !is {
			lines = append(lines, name+" left")
		}
	}
	return lines
}
