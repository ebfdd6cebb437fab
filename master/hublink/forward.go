package hublink

import (
	"context"
	"path/filepath"
	"slices"
	"time"

	"switchboard/hub"
	"switchboard/mailbox"
)

// forward publishes the copies waiting in the outbox, oldest first, and
// removes each once the hub has it. A publish that fails stops the round:
// the same copy goes first next time, so the order holds.
func (l *Link) forward(ctx context.Context, conn *hub.Conn) {
	const round = 64
	reported := make(map[string]bool)
	unheld := make(map[string]bool) // recipients no host holds, as last told
	down := false
	for {
		copies, bad, err := l.outbox.Waiting(round)
		for _, path := range bad {
			if where, err := l.outbox.Refuse(path); err != nil {
				if !reported[path] {
					l.logf("%s does not read as a copy, and stays: %v", path, err)
					reported[path] = true
				}
			} else {
				l.logf("%s does not read as a copy: not sent; moved to %s", filepath.Base(path), where)
			}
		}
		if err != nil {
			l.logf("%v", err)
		}
		// Only a copy the log vouches for goes out: a file put in the outbox
		// by anyone else would be sent under its sender's name. A voucher
		// a round, as it reads the log as long as it was when opened.
		voucher := l.ws.Store.NewVoucher()
		stuck := err != nil // a copy could not be read: try again soon
		if err := voucher.Broken(); err != nil {
			l.logf("cannot read the log to check the copies for the hub: %v; they wait", err)
			copies, stuck = nil, true
		}
		sent := 0
		var ready []mailbox.HubCopy
		for _, c := range copies {
			m := c.Message
			if m.Via != "" || !voucher.Vouches(c.To, mailbox.FileName(m.DeliveredAt, m.Priority, m.ID), m) {
				where, err := l.outbox.Refuse(c.Path)
				if err != nil {
					l.logf("%v", err)
					break
				}
				l.logf("%s is not a copy this master routed (no record of the log vouches for it): not sent; moved to %s", filepath.Base(c.Path), where)
				sent++
				continue
			}
			ready = append(ready, c)
		}
		batch, going := l.address(ctx, conn, ready, unheld)
		l.claimSenders(ctx, conn, batch)
		stored, err := conn.PublishAll(ctx, batch)
		for _, c := range going[:stored] {
			if err := l.outbox.Done(c); err != nil {
				l.logf("%v", err)
				break
			}
			sent++
		}
		switch {
		case err != nil && !down && ctx.Err() == nil && stored < len(going):
			l.logf("cannot hand #%d for %s to the hub: %v; it waits, with those after it", going[stored].Seq, going[stored].To, err)
			down = true
		case err == nil && down && len(batch) > 0:
			l.logf("the hub takes mail again")
			down = false
		}
		voucher.Close()
		if sent == round {
			continue
		}
		wait := time.Minute // the outbox is empty: a put wakes it
		if len(copies) > sent || stuck || len(unheld) > 0 {
			wait = retry
		}
		select {
		case <-ctx.Done():
			return
		case <-l.wake:
		case <-time.After(wait):
		}
	}
}

// address gives each copy the host of its recipient, the one whose consumer
// alone takes it, and returns those to publish, in order. A copy for an
// agent that no host holds (its host never joined, or let it go) waits
// here, with the copies for that agent behind it, and the others go on; the
// log says so once for each such agent, in unheld.
func (l *Link) address(ctx context.Context, conn *hub.Conn, ready []mailbox.HubCopy, unheld map[string]bool) (batch []hub.Copy, going []mailbox.HubCopy) {
	waiting := make(map[string]bool)
	for _, c := range ready {
		if waiting[c.To] {
			continue
		}
		holder, ok, err := conn.Holder(ctx, c.To)
		if err != nil {
			break // the hub away: everything waits, in order
		}
		if !ok {
			waiting[c.To] = true
			if !unheld[c.To] {
				l.logf("mail for %s waits in %s: no host runs it (its host never joined the hub, or let it go)", c.To, l.outbox.Dir())
				unheld[c.To] = true
			}
			continue
		}
		if unheld[c.To] {
			l.logf("%s runs on host %s: its mail goes", c.To, holder.Host)
			delete(unheld, c.To)
		}
		body, err := c.Message.Encode()
		if err != nil {
			l.logf("cannot encode #%d for %s: %v", c.Seq, c.To, err)
			break
		}
		batch = append(batch, hub.Copy{ID: c.Message.ID, To: c.To, ToHost: holder.Host, From: c.Message.From, Body: body})
		going = append(going, c)
	}
	return batch, going
}

// claimSenders makes sure this host claims every sender of the batch before
// it is published: the receiving masters take a copy only from the host that
// held its sender when the hub stored it, and a helper spawned a moment ago
// is claimed at presence's next beat otherwise.
func (l *Link) claimSenders(ctx context.Context, conn *hub.Conn, batch []hub.Copy) {
	claimed := conn.Agents()
	for _, c := range batch {
		if c.From != mailbox.Operator && !slices.Contains(claimed, c.From) {
			l.claimHosted(ctx, conn)
			return
		}
	}
}
