package master

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"switchboard/internal/watch"
	"switchboard/mailbox"
)

// unsettled is an outbox file that is not valid JSON yet: it may be
// half-written. It is rejected once it has not changed for Options.Settle.
type unsettled struct {
	agent string
	stamp string    // size and mtime when last seen
	since time.Time // when it was last seen to change
	err   error
}

// batchSize bounds one group commit: the records of up to this many
// messages, from whichever outboxes a pass went through, are appended, the
// log synced once, and the messages delivered together.
const batchSize = 256

// turn bounds the files of one outbox dealt with in one pass. An outbox
// with thousands of files waiting (a burst, or an agent's loop writing bad
// files) is taken in turns with the others, whose mail waits for one turn
// at most.
const turn = batchSize

// routing is one message on its way: its record is in the log.
type routing struct {
	agent    string // its sender, whose outbox holds it
	path     string
	msg      *mailbox.Message
	rec      mailbox.Record
	appended bool // logged by this pass, not found logged by an earlier one
	// unreceived is the record of the request a response names that its
	// sender never received, to be reported once the response is logged.
	unreceived *mailbox.Record
	// notAPrompt is why a message that claims to be a permission prompt is
	// none, to be reported once it is logged.
	notAPrompt string
}

// scanOutbox prepares every message file in one agent's outbox, up to a
// turn of them, into the pass's batch, committing the batch whenever it is
// full. It returns an error only when the audit log cannot be written,
// which pauses routing: routing without a log would break the exactly-once
// guarantee.
func (m *Master) scanOutbox(p *pass, agent string) error {
	stamp, trusted := m.outboxStamp(agent)
	if trusted && m.quiet[agent] == stamp {
		return nil // as it was when it held nothing to route
	}
	delete(m.quiet, agent)
	m.noteFull(m.unlink(agent))
	paths, errands, err := m.store.Outbox(agent)
	if err != nil {
		m.logf("cannot read the outbox of %s: %v", agent, err)
		return nil
	}
	if len(paths) == 0 && len(errands) == 0 && trusted {
		m.quiet[agent] = stamp
	}
	m.takeErrands(agent, errands)
	seen := make(map[string]bool)
	dealt := 0 // files routed or rejected
	for _, path := range paths {
		if dealt == turn {
			p.cut = append(p.cut, agent)
			return nil
		}
		seen[path] = true
		r, done, err := m.prepare(agent, path)
		if err != nil {
			return err
		}
		if done {
			dealt++
		}
		if r != nil {
			p.batch = append(p.batch, r)
		} else if done {
			p.moved[agent]++ // rejected
		}
		if len(p.batch) == batchSize {
			if err := m.commit(p); err != nil {
				return err
			}
		}
	}
	for path, u := range m.unsettled {
		if u.agent == agent && !seen[path] {
			delete(m.unsettled, path)
		}
	}
	return nil
}

// errLog marks a failure to write the audit log.
type errLog struct{ err error }

func (e errLog) Error() string { return "audit log: " + e.err.Error() }
func (e errLog) Unwrap() error { return e.err }

// prepare reads one outbox file and, when it is a valid message, logs it
// (unless an earlier run did) without syncing the log. It returns nil for a
// file it rejected, one still being written, or one gone meanwhile; done
// says whether it dealt with the file, routing or rejecting it.
func (m *Master) prepare(agent, path string) (r *routing, done bool, err error) {
	msg, err := m.store.OpenPending(agent, path, m.now())
	var unsettled *mailbox.Unsettled
	var refused mailbox.Refusal
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil // gone meanwhile: routed by a previous pass or taken back
	case errors.As(err, &unsettled):
		return nil, m.waitToSettle(agent, path, unsettled.Stamp, unsettled.Err), nil
	case errors.As(err, &refused):
		delete(m.unsettled, path)
		return nil, m.reject(agent, path, string(refused)), nil
	case err != nil: // not read, or its id not written back: left for a later pass
		m.logf("cannot route %s yet: %v", path, err)
		m.noteFull(err)
		return nil, false, nil
	}
	delete(m.unsettled, path)
	if m.remote(agent) {
		// Its own host's master routes its mail; a file here was put by
		// someone else.
		return nil, m.reject(agent, path, fmt.Sprintf("%s runs on another host: its mail is routed there, not from this host's copy of its outbox", agent)), nil
	}
	rec, logged, err := m.log.Routed(msg.ID)
	if err != nil {
		return nil, false, errLog{err}
	}
	if logged && !rec.SameMessage(msg) {
		// The same file again is a crash's leftover, delivered by the
		// record; another message under a used id would ride on that
		// record's decision, past the rules.
		return nil, m.reject(agent, path, fmt.Sprintf("the id %s was used before, by message #%d; leave \"id\" out and a new one is given", msg.ID, rec.Seq)), nil
	}
	var unreceived *mailbox.Record
	var notAPrompt string
	if !logged {
		if rec, err = m.decide(agent, msg); err != nil {
			return nil, m.reject(agent, path, err.Error()), nil
		}
		if unreceived, err = m.bindAnswer(agent, msg, &rec); err != nil {
			return nil, false, errLog{err}
		}
		if notAPrompt, err = m.vouchPermission(agent, msg, &rec); err != nil {
			return nil, false, errLog{err}
		}
		m.vouchCancel(agent, msg, &rec)
		if rec, err = m.log.AppendUnsynced(rec); err != nil {
			return nil, false, errLog{err}
		}
	}
	return &routing{agent: agent, path: path, msg: msg, rec: rec, appended: !logged, unreceived: unreceived, notAPrompt: notAPrompt}, true, nil
}

// decide expands the recipients and applies the rules. A message naming an
// agent the team does not have is refused, with the reason.
func (m *Master) decide(agent string, msg *mailbox.Message) (mailbox.Record, error) {
	route := m.rules.Route(agent, msg)
	if len(route.Unknown) > 0 {
		// An agent spawned a moment ago may not have reached this master's
		// rules yet: look once more before refusing.
		m.reloadRules()
		route = m.rules.Route(agent, msg)
	}
	if len(route.Unknown) > 0 {
		return mailbox.Record{}, mailbox.Refusal(fmt.Sprintf("unknown recipient %q; the team is: %s", route.Unknown[0], strings.Join(m.rules.Agents(), ", ")))
	}
	rec := mailbox.Record{Time: m.now().UTC(), Message: msg, Delivered: route.Delivered, Blocked: route.Blocked, Hash: mailbox.Fingerprint(msg)}
	if wantsInterrupt(msg) && !slices.ContainsFunc(rec.Delivered, func(to string) bool { return m.rules.MayInterruptAgent(agent, to) }) && len(rec.Delivered) > 0 {
		rec.Notes = append(rec.Notes, fmt.Sprintf("interrupt not permitted: %s is not in the interrupts list; delivered as a normal message", agent))
	}
	switch {
	case len(rec.Blocked) == 0:
		rec.Status = mailbox.StatusDelivered
	case len(rec.Delivered) == 0:
		rec.Status = mailbox.StatusBlocked
	default:
		rec.Status = mailbox.StatusPartial
	}
	return rec, nil
}

// wantsInterrupt reports whether the sender asks for the recipients to be
// interrupted: an interrupt message, or an urgent one.
func wantsInterrupt(msg *mailbox.Message) bool {
	return msg.Type == mailbox.TypeInterrupt || msg.Priority == mailbox.PriorityUrgent
}

// announce queues a delivered message for the panes of recipients to:
// typed when they are idle, or at once with ESC first when the sender may
// interrupt. Low priority is never typed.
func (m *Master) announce(msg *mailbox.Message, rec mailbox.Record, to []string) {
	for _, to := range to {
		m.panes.Announce(to, rec, wantsInterrupt(msg) && m.rules.MayInterruptAgent(msg.From, to))
	}
}

func (m *Master) logRouted(rec mailbox.Record) {
	to := slices.Clone(rec.Delivered)
	for _, b := range rec.Blocked {
		to = append(to, b.To)
	}
	line := fmt.Sprintf("#%d %s → %s: %s", rec.Seq, rec.Message.From, strings.Join(to, ", "), rec.Message.Title)
	for _, b := range rec.Blocked {
		line += fmt.Sprintf(" [BLOCKED → %s: %s]", b.To, b.Reason)
	}
	for _, note := range rec.Notes {
		line += " [" + note + "]"
	}
	m.logf("%s", line)
}

// waitToSettle keeps a file that is not valid JSON until it has stayed
// unchanged for the settle time, then rejects it with the parse error,
// reporting whether it did.
func (m *Master) waitToSettle(agent, path, stamp string, parseErr error) (rejected bool) {
	now := m.now()
	u, known := m.unsettled[path]
	if !known || u.stamp != stamp {
		m.unsettled[path] = unsettled{agent: agent, stamp: stamp, since: now, err: parseErr}
		return false
	}
	if now.Sub(u.since) < m.opts.Settle {
		return false
	}
	delete(m.unsettled, path)
	return m.reject(agent, path, fmt.Sprintf("%v (the file stayed unchanged for %s, so it is not being written any more)", u.err, m.opts.Settle))
}

// nextSettleCheck is when the earliest unsettled file is due.
func (m *Master) nextSettleCheck() (time.Time, bool) {
	var next time.Time
	for _, u := range m.unsettled {
		if due := u.since.Add(m.opts.Settle); next.IsZero() || due.Before(next) {
			next = due
		}
	}
	return next, !next.IsZero()
}

// outboxStamp is the stamp of an agent's outbox folder (the folder itself,
// not what a link there leads to), and whether it tells the next change:
// a file put in or taken out changes it, unless that happens within the
// clock's tick of the last change (watch.Racy).
func (m *Master) outboxStamp(agent string) (stamp string, trusted bool) {
	info, err := os.Lstat(m.store.OutboxDir(agent))
	if err != nil {
		return "", false
	}
	return watch.Stamp(info), !watch.Racy(info)
}

// temporariesEvery is how often the reconcile scan sweeps temporaries, which
// it removes an hour old: a sweep each scan would list every agent's
// folders every 30 s for files that are almost never there.
const temporariesEvery = 10 * time.Minute

// sweepTemporaries removes temporaries that writers left behind when they
// died between writing and publishing.
func (m *Master) sweepTemporaries() {
	cutoff := m.now().Add(-time.Hour)
	for agent := range m.watched {
		if m.unlink(agent) == nil {
			m.store.SweepTemporaries(agent, cutoff)
		}
	}
	m.store.SweepStage(cutoff)
}

// The first wait before an outbox whose delivery failed is tried again, and
// the longest: a full disk or a broken inbox is not hammered, and not left
// for the reconcile scan either.
const (
	retryFirst = 250 * time.Millisecond
	retryMost  = 10 * time.Second
)

// retryLater has the agent's outbox scanned again after a wait that doubles
// with each failure in a row.
func (m *Master) retryLater(agent string) {
	wait := min(max(2*m.retryWait[agent], retryFirst), retryMost)
	m.retryWait[agent] = wait
	time.AfterFunc(wait, func() { m.work.mark(agent) })
}

// waitingToRetry reports whether the agent's outbox waits to be tried again
// after a failure.
func (m *Master) waitingToRetry(agent string) bool {
	_, failed := m.retryWait[agent]
	return failed
}

// retried forgets the failures of an outbox that went through, reporting
// whether there were any.
func (m *Master) retried(agent string) bool {
	_, failed := m.retryWait[agent]
	delete(m.retryWait, agent)
	return failed
}

// unlink replaces links among an agent's mailbox folders by folders, saying
// so: the master follows no link an agent set. It is safe to call from any
// goroutine; the caller decides what an error means.
func (m *Master) unlink(agent string) error {
	removed, err := m.store.Unlink(agent)
	for _, link := range removed {
		m.logf("a mailbox folder of %s was a link, %s: replaced by a folder, the link not followed", agent, link)
	}
	if err != nil {
		m.logf("the mailbox of %s: %v", agent, err)
	}
	return err
}
