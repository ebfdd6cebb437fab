package master

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
func (h *hubLink) forward(ctx context.Context, conn *hub.Conn) {
	const round = 64
	reported := make(map[string]bool)
	down := false
	for {
		copies, bad, err := h.outbox.Waiting(round)
		for _, path := range bad {
			if where, err := h.outbox.Refuse(path); err != nil {
				if !reported[path] {
					h.logf("%s does not read as a copy, and stays: %v", path, err)
					reported[path] = true
				}
			} else {
				h.logf("%s does not read as a copy: not sent; moved to %s", filepath.Base(path), where)
			}
		}
		if err != nil {
			h.logf("%v", err)
		}
		// Only a copy the log vouches for goes out: a file put in the outbox
		// by anyone else would be sent under its sender's name. A voucher
		// a round, as it reads the log as long as it was when opened.
		voucher := h.ws.Store.NewVoucher()
		stuck := err != nil // a copy could not be read: try again soon
		if err := voucher.Broken(); err != nil {
			h.logf("cannot read the log to check the copies for the hub: %v; they wait", err)
			copies, stuck = nil, true
		}
		sent := 0
		var ready []mailbox.HubCopy
		for _, c := range copies {
			m := c.Message
			if m.Via != "" || !voucher.Vouches(c.To, mailbox.FileName(m.DeliveredAt, m.Priority, m.ID), m) {
				where, err := h.outbox.Refuse(c.Path)
				if err != nil {
					h.logf("%v", err)
					break
				}
				h.logf("%s is not a copy this master routed (no record of the log vouches for it): not sent; moved to %s", filepath.Base(c.Path), where)
				sent++
				continue
			}
			ready = append(ready, c)
		}
		batch := make([]hub.Copy, 0, len(ready))
		for _, c := range ready {
			body, err := c.Message.Encode()
			if err != nil {
				h.logf("cannot encode #%d for %s: %v", c.Seq, c.To, err)
				break
			}
			batch = append(batch, hub.Copy{ID: c.Message.ID, To: c.To, From: c.Message.From, Body: body})
		}
		h.claimSenders(ctx, conn, batch)
		stored, err := conn.PublishAll(ctx, batch)
		for _, c := range ready[:stored] {
			if err := h.outbox.Done(c); err != nil {
				h.logf("%v", err)
				break
			}
			sent++
		}
		switch {
		case err != nil && !down && ctx.Err() == nil && stored < len(ready):
			h.logf("cannot hand #%d for %s to the hub: %v; it waits, with those after it", ready[stored].Seq, ready[stored].To, err)
			down = true
		case err == nil && down && len(batch) > 0:
			h.logf("the hub takes mail again")
			down = false
		}
		voucher.Close()
		if sent == round {
			continue
		}
		wait := time.Minute // the outbox is empty: a put wakes it
		if len(copies) > sent || stuck {
			wait = hubRetry
		}
		select {
		case <-ctx.Done():
			return
		case <-h.wake:
		case <-time.After(wait):
		}
	}
}

// claimSenders makes sure this host claims every sender of the batch before
// it is published: the receiving masters take a copy only from the host that
// held its sender when the hub stored it, and a helper spawned a moment ago
// is claimed at presence's next beat otherwise.
func (h *hubLink) claimSenders(ctx context.Context, conn *hub.Conn, batch []hub.Copy) {
	claimed := conn.Agents()
	for _, c := range batch {
		if c.From != mailbox.Operator && !slices.Contains(claimed, c.From) {
			h.claimHosted(ctx, conn)
			return
		}
	}
}
