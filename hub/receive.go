package hub

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"switchboard/internal/watch"
)

// Delivered is a copy taken from the hub for one of this host's agents.
type Delivered struct {
	ID, To, From string
	// Host published the copy; it comes from the subject, which the hub
	// lets a host use only under its own name.
	Host string
	Body []byte
}

// ackWait is how long the hub waits for an ack before it delivers a copy
// again. It is short because copies in flight when the hub went down come
// back only after it; a slow handler is covered by telling the hub the copy
// is in progress, and pullBatch keeps few copies waiting on this side.
const (
	ackWait   = 5 * time.Second
	pullBatch = 32
)

// ErrMailTaken is a consumer the hub refused because another host's
// consumer already takes mail for one of the agents.
var ErrMailTaken = errors.New("hub: another host takes mail for one of these agents")

// consumerConfig filters the host's durable consumer to its agents' mail.
// With no agents it filters on a subject nobody may publish to, since an
// empty filter would take the whole team's mail.
func (c *Conn) consumerConfig(agents []string) jetstream.ConsumerConfig {
	filters := make([]string, 0, len(agents))
	for _, a := range agents {
		filters = append(filters, c.names.mailTo(a))
	}
	if len(filters) == 0 {
		filters = append(filters, "sb."+c.names.team+".mail._."+c.host)
	}
	cfg := jetstream.ConsumerConfig{
		Durable:       c.host,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       c.ackWait,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		MaxDeliver:    -1,
	}
	if len(filters) == 1 {
		cfg.FilterSubject = filters[0]
	} else {
		cfg.FilterSubjects = filters
	}
	return cfg
}

func (c *Conn) updateConsumer(ctx context.Context, agents []string) error {
	_, err := c.js.CreateOrUpdateConsumer(ctx, c.names.stream(), c.consumerConfig(agents))
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) && apiErr.ErrorCode == errCodeWorkQueueNotUnique {
		return fmt.Errorf("%w: %w", ErrMailTaken, err)
	}
	return err
}

// SetAgents changes the agents this host claims: new ones are checked
// against other hosts' claims and announced, dropped ones are marked gone,
// and the host's consumer takes mail for exactly the new set.
func (c *Conn) SetAgents(ctx context.Context, agents []string) error {
	ctx, cancel := c.linked(ctx)
	defer cancel()
	agents = slices.Clone(agents)
	if err := checkAgents(agents); err != nil {
		return err
	}
	old := c.Agents()
	var added []string
	for _, a := range agents {
		if !slices.Contains(old, a) {
			added = append(added, a)
		}
	}
	if err := c.checkClaims(ctx, added); err != nil {
		return err
	}
	if err := c.updateConsumer(ctx, agents); err != nil {
		return c.explain(ctx, err, "update the mail consumer")
	}
	for _, a := range added {
		if err := c.putPresence(ctx, a, ""); err != nil {
			return c.explain(ctx, err, "announce agent "+a)
		}
	}
	for _, a := range old {
		if !slices.Contains(agents, a) {
			// Marked, not deleted: a copy it sent while here, still on its
			// way, is still its host's to have sent.
			if err := c.putPresence(ctx, a, stateLeft); err != nil {
				return c.explain(ctx, err, "withdraw agent "+a)
			}
		}
	}
	c.mu.Lock()
	c.agents = agents
	c.mu.Unlock()
	return nil
}

// Receive takes this host's agents' mail from the hub, one copy at a time,
// until ctx ends or the Conn closes. A copy is acknowledged only after
// handle returned nil, so a crash before that delivers it again; when handle
// fails the copy comes back after a delay that grows with each attempt. A
// copy whose sender the publishing host does not claim is dropped from the
// hub and given to JoinConfig.Rejected, never to handle.
func (c *Conn) Receive(ctx context.Context, handle func(context.Context, Delivered) error) error {
	return c.ReceiveBatch(ctx, func(ctx context.Context, ds []Delivered) []error {
		errs := make([]error, len(ds))
		for i, d := range ds {
			errs[i] = handle(ctx, d)
		}
		return errs
	})
}

// ReceiveBatch is Receive for a handler that takes the copies that arrived
// together (up to a batch), so that it can sync its disk once for them all;
// it returns one error a copy, nil for a copy it stored.
func (c *Conn) ReceiveBatch(ctx context.Context, handle func(context.Context, []Delivered) []error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(c.closed, cancel)
	defer stop()
	for attempt := 0; ; attempt++ {
		began := time.Now()
		// An error means the consumer went away or the hub restarted: the
		// next attempt tells whether it is back.
		_ = c.receiveOnce(ctx, handle)
		if c.closed.Err() != nil {
			return ErrClosed
		}
		if time.Since(began) > 10*time.Second {
			attempt = 0
		}
		if err := watch.Sleep(ctx, reconnectDelay(attempt)); err != nil {
			return err
		}
	}
}

func (c *Conn) receiveOnce(ctx context.Context, handle func(context.Context, []Delivered) []error) error {
	cons, err := c.js.Consumer(ctx, c.names.stream(), c.host)
	if errors.Is(err, jetstream.ErrConsumerNotFound) {
		if err := c.updateConsumer(ctx, c.Agents()); err != nil {
			return err
		}
		cons, err = c.js.Consumer(ctx, c.names.stream(), c.host)
	}
	if err != nil {
		return err
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(pullBatch))
	if err != nil {
		return err
	}
	defer it.Stop()
	for {
		msg, err := it.Next(jetstream.NextContext(ctx))
		if err != nil {
			return err
		}
		// What arrived with it is handled with it.
		msgs := []jetstream.Msg{msg}
		for len(msgs) < pullBatch {
			more, err := it.Next(jetstream.NextMaxWait(100 * time.Microsecond))
			if err != nil {
				break
			}
			msgs = append(msgs, more)
		}
		c.process(ctx, msgs, handle)
	}
}

// process hands copies over and settles each with the hub.
func (c *Conn) process(ctx context.Context, msgs []jetstream.Msg, handle func(context.Context, []Delivered) []error) {
	var ds []Delivered
	var kept []jetstream.Msg
	for _, msg := range msgs {
		d, err := c.parse(msg)
		if err == nil {
			err = c.CheckSender(ctx, d.Host, d.From)
			if err != nil && (!errors.Is(err, ErrForged) || deliveries(msg) < unclaimedTries) {
				// Presence could not be read, or does not show the sender
				// yet (an agent its host spawned a moment ago, announced
				// at its next beat): try the copy again later.
				_ = msg.NakWithDelay(retryDelay(msg))
				continue
			}
		}
		if err != nil {
			_ = msg.TermWithReason(err.Error())
			if c.rejected != nil {
				c.rejected(d, err)
			}
			continue
		}
		ds, kept = append(ds, d), append(kept, msg)
	}
	if len(ds) == 0 {
		return
	}
	errs := c.handleInProgress(ctx, kept, ds, handle)
	var acks sync.WaitGroup
	for i, msg := range kept {
		if len(errs) != len(kept) || errs[i] != nil {
			_ = msg.NakWithDelay(retryDelay(msg))
			continue
		}
		acks.Go(func() { c.ack(ctx, msg) })
	}
	acks.Wait()
}

// handleInProgress runs handle, telling the hub every half ack wait that
// the copies are still being handled, so a slow disk does not cause a
// second delivery.
func (c *Conn) handleInProgress(ctx context.Context, msgs []jetstream.Msg, ds []Delivered, handle func(context.Context, []Delivered) []error) []error {
	t := time.NewTicker(c.ackWait / 2)
	defer t.Stop()
	done := make(chan []error, 1)
	go func() { done <- handle(ctx, ds) }()
	for {
		select {
		case errs := <-done:
			return errs
		case <-t.C:
			for _, msg := range msgs {
				_ = msg.InProgress()
			}
		}
	}
}

// ackAttempts bounds the tries of one ack. A lost ack delivers the copy a
// second time, which the handler finds done; an ack retried forever (a hub
// that restarted may never answer one for a delivery it forgot) would stop
// every copy after it.
const ackAttempts = 8

// ack confirms a handled copy, retrying a while when the hub is away.
func (c *Conn) ack(ctx context.Context, msg jetstream.Msg) {
	for attempt := 0; attempt < ackAttempts && ctx.Err() == nil; attempt++ {
		actx, cancel := context.WithTimeout(ctx, c.ackWait/2)
		actx, cancelLink := c.linked(actx)
		err := msg.DoubleAck(actx)
		cancelLink()
		cancel()
		if err == nil || watch.Sleep(ctx, reconnectDelay(attempt)) != nil {
			return
		}
	}
}

func (c *Conn) parse(msg jetstream.Msg) (Delivered, error) {
	host, to, ok := c.names.parseMail(msg.Subject())
	d := Delivered{ID: msg.Headers().Get(headerID), From: msg.Headers().Get(headerFrom), Host: host, To: to, Body: msg.Data()}
	if !ok || d.ID == "" || d.From == "" {
		return d, fmt.Errorf("%w: malformed copy on %s", ErrForged, msg.Subject())
	}
	return d, nil
}

// retryDelay grows by a second with each delivery, up to half a minute.
func retryDelay(msg jetstream.Msg) time.Duration {
	return min(time.Duration(deliveries(msg))*time.Second, 30*time.Second)
}

// deliveries is how many times the hub delivered the copy, this one
// included.
func deliveries(msg jetstream.Msg) uint64 {
	if md, err := msg.Metadata(); err == nil {
		return md.NumDelivered
	}
	return 1
}

// unclaimedTries is how often a copy whose sender its host does not claim
// is tried before it is refused: the delays add up to over two beats.
const unclaimedTries = 5

// errCodeWorkQueueNotUnique is the server's "filtered consumer not unique on
// workqueue stream", which nats.go does not name.
const errCodeWorkQueueNotUnique jetstream.ErrorCode = 10100
