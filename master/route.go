package master

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
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
// messages are appended, the log synced once, and the messages delivered.
const batchSize = 256

// turn bounds the files of one outbox dealt with in one pass. An outbox
// with thousands of files waiting (a burst, or an agent's loop writing bad
// files) is taken in turns with the others, whose mail waits for one turn
// at most.
const turn = batchSize

// routing is one message on its way: its record is in the log.
type routing struct {
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

// scanOutbox routes every message file in one agent's outbox. It returns an
// error only when the audit log cannot be written, which pauses routing:
// routing without a log would break the exactly-once guarantee.
func (m *Master) scanOutbox(agent string) error {
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
	var batch []*routing
	dealt, moved := 0, 0 // files routed or rejected; of those, files out of the outbox
	for _, path := range paths {
		if dealt == turn {
			return m.endTurn(agent, batch, moved)
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
			batch = append(batch, r)
		} else if done {
			moved++ // rejected
		}
		if len(batch) == batchSize {
			n, err := m.commit(agent, batch)
			if err != nil {
				return err
			}
			moved += n
			batch = batch[:0]
		}
	}
	if _, err := m.commit(agent, batch); err != nil {
		return err
	}
	for path, u := range m.unsettled {
		if u.agent == agent && !seen[path] {
			delete(m.unsettled, path)
		}
	}
	return nil
}

// endTurn commits what an outbox's turn prepared, and has the rest of it
// scanned by the next pass, after the other outboxes, unless the turn met
// trouble or moved nothing out of the outbox: a full disk pauses routing,
// an inbox that could not be written has the outbox tried again after a
// wait, and files that stay where they are (sent/ not writable, say) would
// take the next turn again; the reconcile scan tries them again later.
func (m *Master) endTurn(agent string, batch []*routing, moved int) error {
	n, err := m.commit(agent, batch)
	if err != nil {
		return err
	}
	if moved+n > 0 && m.pause.trouble == nil && !m.waitingToRetry(agent) {
		m.work.mark(agent)
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
		if rec, err = m.log.AppendUnsynced(rec); err != nil {
			return nil, false, errLog{err}
		}
	}
	return &routing{path: path, msg: msg, rec: rec, appended: !logged, unreceived: unreceived, notAPrompt: notAPrompt}, true, nil
}

// commit makes a batch's records durable with one sync of the log, delivers
// every copy under names derived from the records, syncs each inbox folder
// it wrote to once, announces each copy written now, and only then moves the
// messages to sent/, reporting how many it moved. A recipient whose inbox
// cannot be written keeps no one else waiting: its copy is tried again
// later, the message staying in the outbox until then.
func (m *Master) commit(agent string, batch []*routing) (moved int, err error) {
	if len(batch) == 0 {
		return 0, nil
	}
	if err := m.log.Sync(); err != nil {
		return 0, errLog{err}
	}
	for _, r := range batch {
		if r.appended {
			m.logRouted(r.rec)
		}
		if r.unreceived != nil {
			m.reportUnreceivedAnswer(r.msg, r.rec, *r.unreceived)
		}
		if r.notAPrompt != "" {
			m.reportNotAPrompt(r.msg, r.rec, r.notAPrompt)
		}
	}
	secured := make(map[string]bool)
	for _, r := range batch {
		for _, to := range r.rec.Delivered {
			if !secured[to] {
				m.noteFull(m.unlink(to))
				secured[to] = true
			}
		}
	}
	written := make(map[string]bool)
	delivered := make([]bool, len(batch))
	fresh := make([][]string, len(batch))
	for i, r := range batch {
		delivered[i], fresh[i] = m.deliver(agent, r, written)
	}
	err = m.store.SyncInboxes(slices.Sorted(maps.Keys(written)))
	if err == nil && m.link != nil {
		err = m.link.Flush()
	}
	if err != nil {
		m.logf("cannot sync the inboxes: %v; will retry", err)
		m.noteFull(err)
		m.retryLater(agent)
		return 0, nil
	}
	allDone := true
	for i, r := range batch {
		m.announce(r.msg, r.rec, fresh[i])
		if !delivered[i] {
			allDone = false
			continue
		}
		if err := m.store.MarkSent(agent, r.path, mailbox.FileName(r.rec.Time, r.msg.Priority, r.msg.ID)); err != nil {
			m.logf("#%d: delivered, but cannot move it to sent/: %v", r.rec.Seq, err)
			continue
		}
		moved++
	}
	if allDone {
		if m.retried(agent) {
			m.logf("%s's outbox is delivered after a retry", agent)
		}
	} else {
		m.retryLater(agent)
	}
	return moved, nil
}

// deliver writes one message's copies, and the sender's BLOCKED notice,
// noting the inbox folders written to. It reports whether all went in, and
// the recipients whose copy it wrote now (not found there from before).
func (m *Master) deliver(agent string, r *routing, written map[string]bool) (all bool, fresh []string) {
	copy := *r.msg
	copy.Seq, copy.DeliveredAt = r.rec.Seq, r.rec.Time
	copy.Via = "" // a copy routed here; only the master sets it, for one from the hub
	// put reports whether the copy is in the inbox, and whether it was
	// written now rather than found there from an earlier pass.
	put := func(to string, msg *mailbox.Message) (in, now bool) {
		now, err := m.store.DeliverUnsynced(to, msg)
		if err != nil {
			m.logf("#%d: cannot deliver to %s: %v; will retry that copy", r.rec.Seq, to, err)
			m.noteFull(err)
			return false, false
		}
		if now {
			written[to] = true
			m.noteWritten(to, msg)
		}
		return true, now
	}
	all = true
	for _, to := range r.rec.Delivered {
		if m.remote(to) {
			// Its host's master delivers it, and tells its pane.
			if err := m.link.Send(r.rec.Seq, to, &copy); err != nil {
				m.logf("#%d: cannot keep the copy for %s, on another host: %v; will retry that copy", r.rec.Seq, to, err)
				m.noteFull(err)
				all = false
			}
			continue
		}
		in, now := put(to, &copy)
		all = all && in
		if now {
			fresh = append(fresh, to)
			m.needsPerson(to, &copy, r.rec.Permission)
		}
	}
	if len(r.rec.Blocked) > 0 {
		n := blockedNotice(r.msg, r.rec)
		if err := m.store.VouchNotice(agent, n); err != nil {
			m.logf("#%d: cannot record the notice to %s: %v; will retry", r.rec.Seq, agent, err)
			m.noteFull(err)
			return false, fresh
		}
		in, _ := put(agent, n)
		all = all && in
	}
	return all, fresh
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
