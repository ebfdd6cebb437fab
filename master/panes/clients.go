package panes

import (
	"os"
	"time"

	"switchboard/conversation"
	"switchboard/internal/clientinbox"
	"switchboard/internal/clientusage"
	"switchboard/internal/proctree"
	"switchboard/lifecycle"
	"switchboard/profile"
)

// A client that keeps a registry of its sessions (Claude Code) says there
// whether it is idle, busy or waiting on a permission prompt: the master
// reads it beside the agent's hooks, and the newer of the two says the
// agent's state. Its hooks and its entry change together mostly; the
// entry also covers a turn no hook marks (a turn its inbox started before
// the hooks of an older client ran, a prompt the Notification hook missed).
// Codex CLI's session log says how each turn ended, a failed one too,
// which no hook of Codex's marks.

// clientStatus maps a registry status to an agent state.
var clientStatus = map[string]string{
	clientinbox.StatusIdle:    conversation.Idle,
	clientinbox.StatusBusy:    conversation.Busy,
	clientinbox.StatusWaiting: conversation.Waiting,
}

// clientRecord is an agent's client record as last read.
type clientRecord struct {
	rec clientinbox.Record
	ok  bool
}

// recordingKinds are the kinds of client the master reads beside their
// hooks: Claude Code's session registry, Codex CLI's session log.
var recordingKinds = map[string]bool{profile.KindClaude: true, profile.KindCodex: true}

// readClients reads, for each agent whose kind of client keeps a record
// the master reads, the session its client recorded (its inbox, by
// inboxKey, while a process of the client runs it) and the state its
// record gives: Claude Code's registry entry, the end of Codex CLI's last
// turn. Each file is read again only when it changed; the registry is
// searched while the session found before is not running (not found, or
// its process ended). followLogs is whether a Codex agent works: the look after next
// comes soon, to read how its turn ends.
func (p *Panes) readClients(session *lifecycle.Session) (inboxes map[string]string, states map[string]conversation.State, followLogs bool) {
	inboxes = make(map[string]string)
	states = make(map[string]conversation.State)
	for name, seat := range session.Agents {
		if !recordingKinds[seat.Kind] {
			continue
		}
		path := p.book.ClientRecordPath(name)
		got, _ := p.clientRecords.Get(path, func() (clientRecord, error) {
			rec, ok, err := clientinbox.ReadRecord(path)
			return clientRecord{rec: rec, ok: ok}, err
		})
		if !got.ok {
			continue
		}
		if seat.Kind == profile.KindCodex {
			if st, ok := p.turnEnd(name, got.rec); ok {
				states[name] = st
			}
			if st, _ := p.readState(name); st.State == conversation.Busy {
				followLogs = true
			}
			continue
		}
		s, live := p.liveSession(name, seat.Pane, got.rec)
		if !live {
			continue // its inbox is tried once its client runs
		}
		inboxes[name] = inboxKey(s)
		now, _ := p.clientEntries.Get(s.EntryPath(), func() (clientinbox.Session, error) { return s.Current() })
		if state, ok := clientStatus[now.Status]; ok && now.SessionID == s.SessionID {
			states[name] = conversation.State{State: state, Since: now.Changed.UTC(), Source: conversation.SourceClient}
		}
	}
	return inboxes, states, followLogs
}

// liveSession is the session the agent's client recorded, when a process
// of the client runs it, in the agent's pane: one killed leaves its entry
// in the registry, and one started again on the same conversation is a
// process of its own.
func (p *Panes) liveSession(agent, pane string, rec clientinbox.Record) (clientinbox.Session, bool) {
	if s, known := p.sessions[agent]; known && s.SessionID == rec.SessionID && proctree.Alive(s.PID) {
		return s, true
	}
	found, err := rec.Session()
	if err != nil || !found.InPane(pane) {
		delete(p.sessions, agent)
		return clientinbox.Session{}, false
	}
	p.sessions[agent] = found
	return found, true
}

// LogTick is how often the master reads the session log of a Codex CLI
// agent that works: Codex runs no hook at the end of a turn that failed
// (its usage limit reached, say), so the log is how the master learns it.
const LogTick = 2 * time.Second

// turnLog is how far an agent's Codex session log was read, and the last
// turn's end found in it.
type turnLog struct {
	path   string
	own    bool  // the agent's own session's log (lifecycle.OwnSession)
	judged int64 // the log's size when it was last found not its own
	offset int64
	end    clientusage.TurnEnd
	ok     bool
}

// turnEnd is what the end of a Codex agent's last turn says of it, when
// that turn failed: limited at its usage limit or login, else idle (the
// turn is over; no hook said so). A turn that worked says nothing its Stop
// hook did not.
func (p *Panes) turnEnd(agent string, rec clientinbox.Record) (conversation.State, bool) {
	l := p.turnLogs[agent]
	if l == nil || l.path != rec.Transcript {
		l = &turnLog{path: rec.Transcript, judged: -1}
		p.turnLogs[agent] = l
	}
	if !l.own {
		// The agent writes its record: the log read is its own session's,
		// never a teammate's it names. Codex writes the agent's card with
		// its first prompt, after the record: a log not yet its own is
		// judged again when it grew.
		size := int64(-1)
		if info, err := os.Stat(l.path); err == nil {
			size = info.Size()
		}
		if size == l.judged {
			return conversation.State{}, false
		}
		l.judged, l.own = size, lifecycle.OwnSession(rec, agent)
		if !l.own {
			return conversation.State{}, false
		}
	}
	if end, ok, err := clientusage.LastTurnEnd(l.path, &l.offset); err == nil && ok {
		l.end, l.ok = end, true
	}
	if !l.ok || !l.end.Failed {
		return conversation.State{}, false
	}
	st := conversation.State{State: conversation.Idle, Since: l.end.Time.UTC(), Source: conversation.SourceClient}
	if l.end.Limited {
		st.State = conversation.Limited
	}
	return st.Detailed(l.end.Why), true
}

// newer is the state of the two that was said last; a says it on a tie.
func newer(a, b conversation.State) conversation.State {
	if b.Since.After(a.Since) {
		return b
	}
	return a
}
