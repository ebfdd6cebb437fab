package hub

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/nats-io/nats.go"
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
	// Published is when the hub stored the copy, by its clock.
	Published time.Time
	// Sender is the claim by which Host held From then: its Profile and
	// Parent say where an agent spawned at run time comes from. For a copy
	// from the person at Host, only Agent (Person) and Host are set.
	Sender Claim
	// Refused, when set, is why the copy is not the sender's: the
	// publishing host did not hold its sender, or it is not a copy at all.
	// The handler keeps a note of it; the copy is terminated on the hub.
	Refused error
	// Deliveries counts the times the hub delivered it, this one included.
	Deliveries uint64
}

// Refusal is a handler's verdict that a copy will never be taken: Receive
// terminates it on the hub, with its reason, rather than deliver it again,
// so that it never holds up the copies behind it.
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return r.Reason }

// Refuse returns a *Refusal with the reason.
func Refuse(reason string) error { return &Refusal{Reason: reason} }

// ackWait is how long the hub waits for an ack before it delivers a copy
// again. It is short because copies in flight when the hub went down come
// back only after it; a slow handler is covered by telling the hub the copy
// is in progress, and pullBatch keeps few copies waiting on this side.
const (
	ackWait    = 5 * time.Second
	pullBatch  = 32
	pullExpiry = 30 * time.Second
)

// consumerConfig is the durable consumer of host: the copies addressed to
// it. The hub makes it (TeamService.Serve, or hub prepare or serve on a stock
// server): a host may not make a consumer, whose request could name where
// the server delivers what it takes.
func (n names) consumerConfig(host string, ackWait time.Duration) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:       host,
		FilterSubject: n.mailFor(host),
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       ackWait,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		MaxDeliver:    -1,
	}
}

// makeConsumer makes sure this host's consumer is on the hub: made by hub
// prepare, on a stock server, or else by the hub, asked.
func (c *Conn) makeConsumer(ctx context.Context) error {
	_, err := c.js.Consumer(ctx, c.names.stream(), c.host)
	if !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return err
	}
	ask, cancel := context.WithTimeout(ctx, consumerAskWait)
	defer cancel()
	msg, err := c.nc.RequestWithContext(ask, c.names.consumerRequest(c.host), nil)
	switch {
	case errors.Is(err, nats.ErrNoResponders) || (err != nil && ctx.Err() == nil && ask.Err() != nil):
		// A stock server answers nobody there.
		return fmt.Errorf("%w: no mail consumer for host %s on the hub, and no hub that makes one: on a NATS server of your own, run switchboard hub serve beside it, as switchboard hub config printed", ErrBadConfig, c.host)
	case err != nil:
		return err
	}
	if answer := string(msg.Data); answer != "ok" {
		return fmt.Errorf("the hub did not make this host's mail consumer: %s", answer)
	}
	return nil
}

// consumerAskWait bounds the wait for the hub to make a consumer.
const consumerAskWait = 15 * time.Second

// SetAgents changes the agents this host runs: new ones are claimed (and
// refused, *AgentClaimed, at the first that another host holds), dropped
// ones let go; origins says where those spawned at run time come from.
// Copies for an agent are addressed to the host that holds it, so mail for
// the new set comes here from then on.
func (c *Conn) SetAgents(ctx context.Context, agents []string, origins map[string]Origin) error {
	c.setMu.Lock()
	defer c.setMu.Unlock()
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
	if err := c.claim(ctx, added, origins); err != nil {
		return err
	}
	for _, a := range old {
		if !slices.Contains(agents, a) {
			// A left claim keeps its place: a copy the agent sent while
			// here, still on its way, is still its host's to have sent.
			if err := c.claimBook().let(ctx, c.host, a); err != nil {
				return c.explain(ctx, err, "let agent "+a+" go")
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
// copy whose Refused is set, or that handle refuses (*Refusal), is
// terminated on the hub once handle returned: it never comes back.
func (c *Conn) Receive(ctx context.Context, handle func(context.Context, Delivered) error) error {
	return c.ReceiveBatch(ctx, func(ctx context.Context, ds []Delivered) []error {
		errs := make([]error, len(ds))
		for i, d := range ds {
			errs[i] = handle(ctx, d)
		}
		return errs
	})
}

// troubleAfter is how long taking mail may fail, with the hub reachable,
// before it is trouble (JoinConfig.Trouble): a hub that restarts, or makes
// this host's consumer, takes a moment.
const troubleAfter = 10 * time.Second

// ReceiveBatch is Receive for a handler that takes the copies that arrived
// together (up to a batch), so that it can sync its disk once for them all;
// it returns one error a copy, nil for a copy it stored. It returns only
// when ctx ends or the Conn closes; why taking mail fails meanwhile goes to
// JoinConfig.Trouble.
func (c *Conn) ReceiveBatch(ctx context.Context, handle func(context.Context, []Delivered) []error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(c.closed, cancel)
	defer stop()
	var failingSince time.Time
	for attempt := 0; ; attempt++ {
		began := time.Now()
		bound, err := c.receiveOnce(ctx, handle)
		if c.closed.Err() != nil {
			return ErrClosed
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		switch {
		case bound:
			failingSince = time.Time{}
		case failingSince.IsZero():
			failingSince = began
		}
		if !bound && err != nil && c.nc.IsConnected() && (errors.Is(err, ErrDenied) || time.Since(failingSince) > troubleAfter) {
			c.setTrouble(err)
		}
		if time.Since(began) > troubleAfter {
			attempt = 0
		}
		if err := watch.Sleep(ctx, reconnectDelay(attempt)); err != nil {
			return err
		}
	}
}

// setTrouble records why this host cannot take its mail (nil: it can), and
// tells JoinConfig.Trouble when that changed. A host in trouble lets its
// heartbeat lapse.
func (c *Conn) setTrouble(err error) {
	if was := c.stalled.Swap(err != nil); !was && err == nil {
		return
	}
	if c.trouble != nil {
		c.trouble(err)
	}
}

// receiveOnce takes mail until an error; bound says whether it got as far
// as waiting for mail.
func (c *Conn) receiveOnce(ctx context.Context, handle func(context.Context, []Delivered) []error) (bound bool, err error) {
	lctx, cancel := c.linked(ctx)
	cons, err := c.js.Consumer(lctx, c.names.stream(), c.host)
	if errors.Is(err, jetstream.ErrConsumerNotFound) {
		// Gone with a hub that lost its files: made again.
		if err = c.makeConsumer(lctx); err == nil {
			cons, err = c.js.Consumer(lctx, c.names.stream(), c.host)
		}
	}
	if err != nil {
		err = c.explain(lctx, err, "take mail")
		cancel()
		return false, err
	}
	cancel()
	if w := cons.CachedInfo().Config.AckWait; w > 0 {
		c.ackWait.Store(int64(w))
	}
	// A short heartbeat: a consumer the hub lost is noticed in seconds.
	it, err := cons.Messages(jetstream.PullMaxMessages(pullBatch), jetstream.PullExpiry(pullExpiry), jetstream.PullHeartbeat(pullExpiry/4))
	if err != nil {
		return false, c.explain(ctx, err, "take mail")
	}
	defer it.Stop()
	c.setTrouble(nil)
	for {
		msg, err := it.Next(jetstream.NextContext(ctx))
		if err != nil {
			return true, err
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
		c.arrived.Add(uint64(len(msgs)))
		c.process(ctx, msgs, handle)
	}
}

// ackWaitNow is how long the hub waits for an ack of a copy, as this
// host's consumer last said.
func (c *Conn) ackWaitNow() time.Duration { return time.Duration(c.ackWait.Load()) }

// errNotHandled stands for the outcome of a copy that a handler did not
// report: it is tried again.
var errNotHandled = errors.New("hub: the handler gave no outcome for the copy")

// process checks each copy's sender, hands the copies over and settles each
// with the hub.
func (c *Conn) process(ctx context.Context, msgs []jetstream.Msg, handle func(context.Context, []Delivered) []error) {
	fresh := time.Now()
	current := c.claimsCurrent(ctx)
	ds := make([]Delivered, 0, len(msgs))
	kept := make([]jetstream.Msg, 0, len(msgs))
	for _, msg := range msgs {
		d, err := c.parse(msg)
		if err == nil {
			d.Sender, err = c.senderOf(ctx, d, fresh, current)
			if err != nil && !errors.Is(err, ErrForged) {
				// The claims could not be read: try the copy again later.
				_ = msg.NakWithDelay(retryDelay(msg))
				continue
			}
		}
		d.Refused = err
		ds, kept = append(ds, d), append(kept, msg)
	}
	if len(ds) == 0 {
		return
	}
	errs := c.handleInProgress(ctx, kept, ds, handle)
	var settle sync.WaitGroup
	for i, msg := range kept {
		err := errNotHandled
		if len(errs) == len(kept) {
			err = errs[i]
		}
		var refusal *Refusal
		switch {
		case err == nil && ds[i].Refused == nil:
			settle.Go(func() { c.ack(ctx, msg) })
		case errors.As(err, &refusal):
			settle.Go(func() { c.term(ctx, msg, refusal.Reason) })
		case err == nil:
			// The handler kept its note of a copy the hub's check refused.
			reason := ds[i].Refused.Error()
			settle.Go(func() { c.term(ctx, msg, reason) })
		default:
			_ = msg.NakWithDelay(retryDelay(msg))
		}
	}
	settle.Wait()
}

// handleInProgress runs handle, telling the hub every half ack wait that
// the copies are still being handled, so a slow disk does not cause a
// second delivery.
func (c *Conn) handleInProgress(ctx context.Context, msgs []jetstream.Msg, ds []Delivered, handle func(context.Context, []Delivered) []error) []error {
	t := time.NewTicker(c.ackWaitNow() / 2)
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
	c.settle(ctx, msg.DoubleAck)
}

// term ends a refused copy on the hub for good, with its reason. A term
// that is lost delivers the copy again, to be refused again.
func (c *Conn) term(ctx context.Context, msg jetstream.Msg, reason string) {
	c.settle(ctx, func(context.Context) error { return msg.TermWithReason(clip(reason, maxReason)) })
}

// settle runs an ack of some kind, retrying a while when the hub is away.
func (c *Conn) settle(ctx context.Context, ack func(context.Context) error) {
	for attempt := 0; attempt < ackAttempts && ctx.Err() == nil; attempt++ {
		actx, cancel := context.WithTimeout(ctx, c.ackWaitNow()/2)
		actx, cancelLink := c.linked(actx)
		err := ack(actx)
		cancelLink()
		cancel()
		if err == nil || watch.Sleep(ctx, reconnectDelay(attempt)) != nil {
			return
		}
	}
}

func (c *Conn) parse(msg jetstream.Msg) (Delivered, error) {
	toHost, host, to, ok := c.names.parseMail(msg.Subject())
	ok = ok && toHost == c.host
	d := Delivered{ID: msg.Headers().Get(headerID), From: msg.Headers().Get(headerFrom), Host: host, To: to, Body: msg.Data(), Deliveries: 1}
	if md, err := msg.Metadata(); err == nil {
		d.Published, d.Deliveries = md.Timestamp, md.NumDelivered
	}
	if !ok || d.ID == "" || d.From == "" || d.Published.IsZero() {
		return d, fmt.Errorf("%w: malformed copy on %s", ErrForged, msg.Subject())
	}
	return d, nil
}

// retryDelay grows by a second with each delivery, up to half a minute.
func retryDelay(msg jetstream.Msg) time.Duration {
	n := uint64(1)
	if md, err := msg.Metadata(); err == nil {
		n = md.NumDelivered
	}
	return min(time.Duration(n)*time.Second, 30*time.Second)
}

// errCodeWorkQueueNotUnique is the server's "filtered consumer not unique on
// workqueue stream", which nats.go does not name.
const errCodeWorkQueueNotUnique jetstream.ErrorCode = 10100

// maxReason bounds the reason kept with a terminated copy.
const maxReason = 512

// clip cuts s to at most n bytes, on a character's boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Backlog is how many copies the hub handed this host that it has not
// acknowledged, and how many it may have so before the hub hands it no
// more; none, without a consumer. Only a copy taken adds to them: while
// none was taken since the hub last said none wait, the hub is not asked
// again, so that a host at rest asks nothing each beat.
func (c *Conn) Backlog(ctx context.Context) (pending, limit int, err error) {
	arrived := c.arrived.Load()
	if limit, ok := c.backlog.none(arrived); ok {
		return 0, limit, nil
	}
	ctx, cancel := c.linked(ctx)
	defer cancel()
	cons, err := c.js.Consumer(ctx, c.names.stream(), c.host)
	if errors.Is(err, jetstream.ErrConsumerNotFound) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, c.explain(ctx, err, "read the mail consumer")
	}
	info := cons.CachedInfo()
	c.backlog.saw(arrived, info.NumAckPending, info.Config.MaxAckPending)
	return info.NumAckPending, info.Config.MaxAckPending, nil
}

// backlogSeen is what the hub last said of a host's unacknowledged copies,
// and how many copies the host had taken then.
type backlogSeen struct {
	mu      sync.Mutex
	known   bool
	arrived uint64
	pending int
	limit   int
}

func (b *backlogSeen) saw(arrived uint64, pending, limit int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.known, b.arrived, b.pending, b.limit = true, arrived, pending, limit
}

// none reports the limit, and whether no copy waits unacknowledged for
// certain: the hub said none did, and none was taken since.
func (b *backlogSeen) none(arrived uint64) (limit int, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.limit, b.known && b.pending == 0 && b.arrived == arrived
}
