package hub

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

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
	// ToHost is the host that holds To, whose consumer alone takes the
	// copy; when empty, Publish and PublishAll look it up (AddressAll).
	ToHost string
	// Body is the delivered message as the recipient's inbox will hold it.
	Body []byte
}

// Publish stores one copy on the hub and waits until the hub has it: the
// hub publishes it on this host's behalf (writes.go). The copy's id on the
// hub, "<host>/<ID>/<To>", makes a re-publish within the duplicate window
// a no-op that still succeeds, so a copy whose outcome is unknown can
// simply be published again; the host's name in it keeps every host's ids
// apart. Publish fails, without waiting for a reconnect, when the hub is
// unreachable: the caller keeps the copy and retries in order.
func (c *Conn) Publish(ctx context.Context, cp Copy) error {
	ctx, cancel := c.linked(ctx)
	defer cancel()
	if err := c.address(ctx, &cp); err != nil {
		return err
	}
	msg, err := c.message(cp)
	if err != nil {
		return err
	}
	if c.closed.Err() != nil {
		return ErrClosed
	}
	answer, err := c.nc.RequestMsgWithContext(ctx, msg)
	if err == nil {
		err = writeErr(answer)
	}
	if err != nil {
		return c.explain(ctx, err, "publish "+cp.ID+" to "+cp.To)
	}
	return nil
}

// publishAllWait bounds the wait for the hub's answers to one PublishAll.
const publishAllWait = 30 * time.Second

// PublishAll stores copies on the hub the way Publish stores one, but sends
// them all before it waits, so that a backlog crosses at the pace of the
// hub's disk rather than of one round trip a copy. It returns how many of
// the first copies the hub has, in order, and the error of the first one it
// may not have: the caller publishes again from there (a copy stored after
// it is then dropped as a re-publish). The hub stores the copies of one
// host in the order sent.
func (c *Conn) PublishAll(ctx context.Context, copies []Copy) (stored int, err error) {
	ctx, cancel := c.linked(ctx)
	defer cancel()
	ctx, cancelWait := context.WithTimeout(ctx, publishAllWait)
	defer cancelWait()
	if c.closed.Err() != nil {
		return 0, ErrClosed
	}
	// One reply subject for the batch, a token a copy: the answers come
	// as the hub has each.
	replies, answers, done, err := c.answers.open(len(copies))
	if err != nil {
		return 0, c.explain(ctx, err, "publish")
	}
	defer done()
	var sendErr error
	sent := 0
	for i, cp := range copies {
		if sendErr = c.address(ctx, &cp); sendErr != nil {
			break
		}
		var msg *nats.Msg
		if msg, sendErr = c.message(cp); sendErr != nil {
			break
		}
		msg.Reply = replies + "." + strconv.Itoa(i)
		if err := c.nc.PublishMsg(msg); err != nil {
			sendErr = c.explain(ctx, err, "publish "+cp.ID+" to "+cp.To)
			break
		}
		sent++
	}
	results := make([]error, sent)
	answered := make([]bool, sent)
	for got := 0; got < sent; {
		select {
		case a := <-answers:
			if a.index < 0 || a.index >= sent || answered[a.index] {
				continue
			}
			answered[a.index], results[a.index] = true, writeErr(a.msg)
			got++
		case <-ctx.Done():
			for i := range sent {
				if !answered[i] {
					return i, c.explain(ctx, ctx.Err(), "publish "+copies[i].ID+" to "+copies[i].To)
				}
			}
		}
	}
	for i, err := range results {
		if err != nil {
			return i, c.explain(ctx, err, "publish "+copies[i].ID+" to "+copies[i].To)
		}
	}
	return sent, sendErr
}

// ErrNoHolder is a copy for an agent no host holds: its host never joined,
// or let it go. It waits with its sender until one does.
var ErrNoHolder = errors.New("hub: no host runs the agent")

// address fills in the host that holds the copy's recipient, when the
// caller did not.
func (c *Conn) address(ctx context.Context, cp *Copy) error {
	if cp.ToHost != "" {
		return nil
	}
	holder, ok, err := c.Holder(ctx, cp.To)
	switch {
	case err != nil:
		return err
	case !ok:
		return fmt.Errorf("%w: %s", ErrNoHolder, cp.To)
	}
	cp.ToHost = holder.Host
	return nil
}

// message is the request that has the hub store a copy: for the host
// that holds its recipient, from this host (the hub knows which from the
// request's subject), with its id and sender.
func (c *Conn) message(cp Copy) (*nats.Msg, error) {
	if cp.ID == "" {
		return nil, fmt.Errorf("%w: a copy needs an id", ErrBadConfig)
	}
	if err := checkName("recipient", cp.To); err != nil {
		return nil, err
	}
	if err := checkName("sender", cp.From); err != nil {
		return nil, err
	}
	if err := checkName("recipient's host", cp.ToHost); err != nil {
		return nil, err
	}
	msg := &nats.Msg{Subject: c.names.writeRequest(c.host), Header: nats.Header{}, Data: cp.Body}
	msg.Header.Set(writeOp, writeMail)
	msg.Header.Set(writeToHost, cp.ToHost)
	msg.Header.Set(writeTo, cp.To)
	msg.Header.Set(headerID, cp.ID)
	msg.Header.Set(headerFrom, cp.From)
	return msg, nil
}
