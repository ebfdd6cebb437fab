package hublink

import (
	"context"
	"errors"
	"time"

	"switchboard/hub"
	"switchboard/master/link"
)

// receive takes this host's agents' mail from the hub and hands the copies
// to the master, as they come, until ctx is done; each is settled with the
// hub by what the master made of it.
func (l *Link) receive(ctx context.Context, conn *hub.Conn) {
	for ctx.Err() == nil {
		err := conn.ReceiveBatch(ctx, func(ctx context.Context, ds []hub.Delivered) []error {
			done := make(chan []error, 1)
			a := link.Arrival{Copies: make([]link.Copy, len(ds)), Done: done}
			for i, d := range ds {
				a.Copies[i] = link.Copy{ID: d.ID, To: d.To, From: d.From, Host: d.Host, Body: d.Body, Published: d.Published,
					Profile: d.Sender.Profile, Parent: d.Sender.Parent, Refused: d.Refused, Deliveries: d.Deliveries}
			}
			select {
			case l.arrivals <- a:
			case <-ctx.Done():
				return nil // none stored: all come again
			}
			var errs []error
			select {
			case errs = <-done:
			case <-ctx.Done():
				return nil
			}
			for i, err := range errs {
				var refusal *link.Refusal
				if errors.As(err, &refusal) {
					errs[i] = hub.Refuse(refusal.Reason)
				}
			}
			return errs
		})
		if ctx.Err() != nil {
			return
		}
		l.logf("taking mail from the hub stopped: %v; trying again", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(retry):
		}
	}
}
