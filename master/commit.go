package master

import (
	"maps"
	"slices"

	"switchboard/mailbox"
)

// A pass of the loop over the outboxes routes what waits in all of them as
// batches (group commit): the records of a batch are appended, its copies
// written to temporary files, then the log and the copies synced side by
// side; only then does any copy take its name, each inbox folder a copy is
// in is synced once, and last the messages leave their outboxes. A crash at
// any step loses nothing and repeats nothing: a message leaves its outbox
// only once its record and its copies are durable, and one found still
// there with its record logged is delivered under the names the record
// gives, the copies already there kept (and their folders synced again).

// pass is what a pass of the loop has prepared and not yet committed, and
// what became of the outboxes it went through.
type pass struct {
	batch []*routing
	moved map[string]int // files out of each outbox: rejected, or routed and moved to sent/
	cut   []string       // outboxes whose turn ended with files left
}

func newPass() *pass { return &pass{moved: make(map[string]int)} }

// routePass routes what waits in the outboxes of agents, in batches that
// span outboxes, and has the rest of each outbox whose turn ended scanned by
// the next pass, after the other outboxes, unless the pass met trouble or
// moved nothing out of that outbox: a full disk pauses routing, an inbox
// that could not be written has the outbox tried again after a wait, and
// files that stay where they are (sent/ not writable, say) would take the
// next turn again; the reconcile scan tries them again later. It returns an
// error only when the log cannot be written; what the batch under way
// prepared is then left to the next pass, its records taken back or found
// logged.
func (m *Master) routePass(agents []string) error {
	p := newPass()
	for _, agent := range agents {
		if err := m.scanOutbox(p, agent); err != nil {
			return err // the next outboxes would fail alike; the retry scans all
		}
	}
	if err := m.commit(p); err != nil {
		return err
	}
	for _, agent := range p.cut {
		if p.moved[agent] > 0 && m.pause.trouble == nil && !m.waitingToRetry(agent) {
			m.work.mark(agent)
		}
	}
	return nil
}

// delivering is one routing's way through a commit: its local copies, and
// whether anything of it failed.
type delivering struct {
	r      *routing
	copy   mailbox.Message // the message as its recipients get it
	copies []*mailbox.Copy // its copies on this host, the BLOCKED notice among them
	failed bool            // a copy, or the notice's record, could not be kept: it stays in the outbox
}

// commit delivers the pass's batch, and empties it. It returns an error
// only when the log cannot be synced: the records are then taken back, no
// copy takes its name, and every message stays in its outbox. A recipient
// whose inbox cannot be written keeps no one else waiting: its copy is
// tried again later, the message staying in the outbox until then.
func (m *Master) commit(p *pass) error {
	batch := p.batch
	p.batch = nil
	if len(batch) == 0 {
		return nil
	}
	secured := make(map[string]bool)
	for _, r := range batch {
		for _, to := range r.rec.Delivered {
			if !secured[to] && !m.remote(to) {
				m.noteFull(m.unlink(to))
				secured[to] = true
			}
		}
	}
	d := m.store.NewDelivery()
	ds := make([]*delivering, len(batch))
	for i, r := range batch {
		ds[i] = m.stage(d, r)
	}
	// The records and the copies' contents are synced side by side: no
	// copy has a name yet, so none can be seen before its record is durable.
	logSynced := make(chan error, 1)
	go func() { logSynced <- m.log.Sync() }()
	d.Sync()
	if err := <-logSynced; err != nil {
		d.Discard()
		return errLog{err}
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
	d.Publish()
	for _, dv := range ds {
		m.sendAway(dv)
	}
	if m.link != nil {
		if err := m.link.Flush(); err != nil {
			m.logf("cannot keep the copies for other hosts: %v; will retry", err)
			m.noteFull(err)
			for _, dv := range ds {
				dv.failed = dv.failed || slices.ContainsFunc(dv.r.rec.Delivered, m.remote)
			}
		}
	}
	failed := make(map[string]bool) // outboxes with a message not delivered
	told := make(map[string]bool)   // failures said: an inbox folder's, once for all its copies
	for _, dv := range ds {
		if m.finish(dv, told) {
			p.moved[dv.r.agent]++
		}
		if dv.failed {
			failed[dv.r.agent] = true
		}
	}
	for _, agent := range slices.Sorted(maps.Keys(failed)) {
		m.retryLater(agent)
	}
	for _, dv := range ds {
		if agent := dv.r.agent; !failed[agent] && m.retried(agent) {
			m.logf("%s's outbox is delivered after a retry", agent)
		}
	}
	return nil
}

// stage writes a routing's copies for this host's recipients, and the
// sender's BLOCKED notice, into the delivery, unsynced; the notice's mark
// is recorded first, so that the notice is vouched for once it is seen.
func (m *Master) stage(d *mailbox.Delivery, r *routing) *delivering {
	dv := &delivering{r: r, copy: *r.msg}
	dv.copy.Seq, dv.copy.DeliveredAt = r.rec.Seq, r.rec.Time
	dv.copy.Via = "" // a copy routed here; only the master sets it, for one from the hub
	// A record made by this pass names copies no earlier pass can have
	// delivered; one found logged may have some of its copies in already.
	add := d.Add
	if r.appended {
		add = d.AddFresh
	}
	for _, to := range r.rec.Delivered {
		if !m.remote(to) {
			dv.copies = append(dv.copies, add(to, &dv.copy))
		}
	}
	if len(r.rec.Blocked) > 0 {
		n := blockedNotice(r.msg, r.rec)
		if err := m.store.VouchNotice(r.agent, n); err != nil {
			m.logf("#%d: cannot record the notice to %s: %v; will retry", r.rec.Seq, r.agent, err)
			m.noteFull(err)
			dv.failed = true
		} else {
			dv.copies = append(dv.copies, add(r.agent, n))
		}
	}
	return dv
}

// sendAway hands the copies for recipients on other hosts to the link:
// their hosts' masters deliver them, and tell their panes.
func (m *Master) sendAway(dv *delivering) {
	for _, to := range dv.r.rec.Delivered {
		if !m.remote(to) {
			continue
		}
		if err := m.link.Send(dv.r.rec.Seq, to, &dv.copy); err != nil {
			m.logf("#%d: cannot keep the copy for %s, on another host: %v; will retry that copy", dv.r.rec.Seq, to, err)
			m.noteFull(err)
			dv.failed = true
		}
	}
}

// finish tells of a routing's copies once they are durable, announces those
// written now, and moves the message to sent/ when every copy is in,
// reporting whether it left the outbox. A failure told of already in this
// commit (an inbox folder's, which every copy in it shares) is not told
// again. A message whose copies are all in but that cannot be moved (sent/
// is not a folder, say) is not tried again before the reconcile scan: it
// would fail alike.
func (m *Master) finish(dv *delivering, told map[string]bool) (moved bool) {
	r := dv.r
	var fresh []string
	for _, c := range dv.copies {
		if c.Err != nil {
			if why := c.Err.Error(); !told[why] {
				told[why] = true
				m.logf("#%d: cannot deliver to %s: %v; will retry that copy", r.rec.Seq, c.Agent, c.Err)
			}
			m.noteFull(c.Err)
			dv.failed = true
			continue
		}
		if !c.Written {
			continue
		}
		m.noteCopy(c.Agent, c.Name, c.Holds)
		if c.Msg == &dv.copy {
			fresh = append(fresh, c.Agent)
			m.needsPerson(c.Agent, &dv.copy, r.rec.Permission)
		}
	}
	m.announce(r.msg, r.rec, fresh)
	if dv.failed {
		return false
	}
	if err := m.store.MarkSent(r.agent, r.path, mailbox.FileName(r.rec.Time, r.msg.Priority, r.msg.ID)); err != nil {
		m.logf("#%d: delivered, but cannot move it to sent/: %v", r.rec.Seq, err)
		return false
	}
	return true
}
