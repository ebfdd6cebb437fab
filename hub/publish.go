package hub

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go"
)

// Headers of a copy on the hub; the recipient is in the subject.
const (
	headerID   = "Sb-Id"
	headerFrom = "Sb-From"
)

// Copy is one recipient's copy of a routed message.
type Copy struct {
	// ID is the message's id, the same for every recipient.
	ID string
	// To is the recipient, an agent on another host; From is the sender, an
	// agent of this host.
	To, From string
	// Body is the delivered message as the recipient's inbox will hold it.
	Body []byte
}

// Publish stores one copy on the hub and waits until the hub has it. The
// message id "<ID>/<To>" makes a re-publish within the duplicate window a
// no-op that still succeeds, so a copy whose outcome is unknown can simply be
// published again. Publish fails, without waiting for a reconnect, when the
// hub is unreachable: the caller keeps the copy and retries in order.
func (c *Conn) Publish(ctx context.Context, cp Copy) error {
	ctx, cancel := c.linked(ctx)
	defer cancel()
	if cp.ID == "" {
		return fmt.Errorf("%w: a copy needs an id", ErrBadConfig)
	}
	if err := checkName("recipient", cp.To); err != nil {
		return err
	}
	if err := checkName("sender", cp.From); err != nil {
		return err
	}
	if c.closed.Err() != nil {
		return ErrClosed
	}
	msg := &nats.Msg{
		Subject: c.names.mail(c.host, cp.To),
		Header:  nats.Header{},
		Data:    cp.Body,
	}
	msg.Header.Set(headerID, cp.ID)
	msg.Header.Set(headerFrom, cp.From)
	msg.Header.Set(nats.MsgIdHdr, cp.ID+"/"+cp.To)
	if _, err := c.js.PublishMsg(ctx, msg); err != nil {
		return c.explain(ctx, err, "publish "+cp.ID+" to "+cp.To)
	}
	return nil
}
