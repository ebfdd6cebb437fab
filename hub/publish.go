package hub

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
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

// Publish stores one copy on the hub and waits until the hub has it. The
// copy's id on the hub (dedupID) makes a re-publish within the duplicate
// window a no-op that still succeeds, so a copy whose outcome is unknown can simply be
// published again. Publish fails, without waiting for a reconnect, when the
// hub is unreachable: the caller keeps the copy and retries in order.
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
	if _, err := c.js.PublishMsg(ctx, msg); err != nil {
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
// connection in the order sent.
func (c *Conn) PublishAll(ctx context.Context, copies []Copy) (stored int, err error) {
	ctx, cancel := c.linked(ctx)
	defer cancel()
	ctx, cancelWait := context.WithTimeout(ctx, publishAllWait)
	defer cancelWait()
	if c.closed.Err() != nil {
		return 0, ErrClosed
	}
	futures := make([]jetstream.PubAckFuture, 0, len(copies))
	var sendErr error
	for _, cp := range copies {
		if sendErr = c.address(ctx, &cp); sendErr != nil {
			break
		}
		var msg *nats.Msg
		if msg, sendErr = c.message(cp); sendErr != nil {
			break
		}
		f, err := c.js.PublishMsgAsync(msg)
		if err != nil {
			sendErr = c.explain(ctx, err, "publish "+cp.ID+" to "+cp.To)
			break
		}
		futures = append(futures, f)
	}
	for i, f := range futures {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			return i, c.explain(ctx, err, "publish "+copies[i].ID+" to "+copies[i].To)
		case <-ctx.Done():
			return i, c.explain(ctx, ctx.Err(), "publish "+copies[i].ID+" to "+copies[i].To)
		}
	}
	return len(futures), sendErr
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

// message is a copy as the hub stores it: on the subject of its recipient's
// host, this host and its recipient, its id twice (for the recipient, and
// for the duplicate window with the recipient, as each recipient's copy is
// a message of its own).
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
	msg := &nats.Msg{Subject: c.names.mail(cp.ToHost, c.host, cp.To), Header: nats.Header{}, Data: cp.Body}
	msg.Header.Set(headerID, cp.ID)
	msg.Header.Set(headerFrom, cp.From)
	msg.Header.Set(nats.MsgIdHdr, c.dedupID(cp))
	return msg, nil
}

// dedupID is the id under which the hub drops a re-publish of cp: a digest
// of "<ID>/<To>" under this host's own key. The hub's duplicate window is
// the stream's, every host's copies in one: an id another host could
// foresee (having been sent the same message, say) would let it publish
// first under that id, and the hub would drop this host's copy as a
// duplicate.
func (c *Conn) dedupID(cp Copy) string {
	mac := hmac.New(sha256.New, c.idKey)
	mac.Write([]byte(cp.ID + "/" + cp.To))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// idKey is this host's key of its copies' ids on the hub: what it joins
// with (its password, or the credentials of a server of its operator's),
// which no other host knows, so that the ids are the same after a restart;
// a random key for a host that joins with nothing secret.
func idKey(rawURL string, credentials []byte) []byte {
	h := sha256.New()
	h.Write([]byte("switchboard copy id\x00"))
	secret := len(credentials) > 0
	h.Write(credentials)
	for _, one := range strings.Split(rawURL, ",") {
		if u, err := url.Parse(strings.TrimSpace(one)); err == nil {
			if p, ok := u.User.Password(); ok {
				h.Write([]byte(p))
				secret = true
			}
		}
	}
	if !secret {
		random := make([]byte, 32)
		_, _ = rand.Read(random) // never fails (crypto/rand)
		h.Write(random)
	}
	return h.Sum(nil)
}
