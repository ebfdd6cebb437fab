package hub

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"switchboard/internal/watch"
)

// The hub keeps every host's consumer. A consumer's filter is in the body
// of the request that makes it, which the server's subject permissions
// cannot see: a host allowed to make its own could filter on any agent and
// read, or take, the team's mail. So no host may make or change a consumer;
// the hub gives each host the mail of exactly the agents it holds, as the
// claims decide, and changes that as claims come and go.

// keeperTick is the hub's look at every consumer besides the changes it
// hears of: the net under a change it missed.
const keeperTick = 5 * time.Second

// keeperSettle is how long the keeper lets claims gather before it acts.
const keeperSettle = 10 * time.Millisecond

// keeper keeps the consumers of one team's hosts.
type keeper struct {
	js      jetstream.JetStream
	book    claimBook
	n       names
	ackWait time.Duration
	logf    func(string, ...any)

	changed chan struct{}
	wg      sync.WaitGroup
}

// run reconciles the consumers with the claims whenever the claims change,
// until ctx ends.
func (k *keeper) run(ctx context.Context) {
	k.changed = make(chan struct{}, 1)
	k.wg.Go(func() { k.watch(ctx, k.book.kv) })
	tick := time.NewTicker(keeperTick)
	defer tick.Stop()
	var last string
	for {
		rctx, cancel := context.WithTimeout(ctx, keeperTick)
		err := k.reconcile(rctx)
		cancel()
		if err != nil && ctx.Err() == nil && err.Error() != last {
			k.logf("cannot keep the hosts' consumers: %v", err)
		}
		if err != nil {
			last = err.Error()
		} else {
			last = ""
		}
		select {
		case <-ctx.Done():
			k.wg.Wait()
			return
		case <-k.changed:
			// The claims of a host that joins come one after another:
			// taken together, its consumer is made once, whole.
			_ = watch.Sleep(ctx, keeperSettle)
		case <-tick.C:
		}
	}
}

// watch wakes the keeper on every change of a bucket.
func (k *keeper) watch(ctx context.Context, kv jetstream.KeyValue) {
	for ctx.Err() == nil {
		w, err := kv.WatchAll(ctx, jetstream.UpdatesOnly())
		if err != nil {
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
				continue
			}
		}
		for range w.Updates() {
			select {
			case k.changed <- struct{}{}:
			default:
			}
		}
		_ = w.Stop()
	}
}

// reconcile gives each host the consumer its claims call for. Consumers
// that lose agents change first: the server refuses two consumers of a work
// queue taking the same agent's mail, so one that gains an agent waits for
// the one that lets it go.
func (k *keeper) reconcile(ctx context.Context) error {
	claims, err := k.book.read(ctx, "*")
	if err != nil {
		return fmt.Errorf("read the claims: %w", err)
	}
	// A host gets its consumer with its first agent: made then, it starts
	// at the first copy waiting, with nothing to go back for.
	want := make(map[string][]string)
	for agent, cls := range claims {
		if holder, ok := holderNow(cls); ok {
			want[holder.Host] = append(want[holder.Host], agent)
		}
	}
	stream, err := k.js.Stream(ctx, k.n.stream())
	if err != nil {
		return fmt.Errorf("open the mail stream: %w", err)
	}
	have := make(map[string][]string)
	list := stream.ListConsumers(ctx)
	for info := range list.Info() {
		have[info.Name] = filtersOf(info.Config)
		if validName(info.Name) {
			want[info.Name] = want[info.Name] // one that holds nothing any more takes nothing
		}
	}
	if err := list.Err(); err != nil {
		return fmt.Errorf("list the consumers: %w", err)
	}
	var losing, rest []string
	for _, host := range slices.Sorted(maps.Keys(want)) {
		slices.Sort(want[host])
		cfg := k.n.consumerConfig(host, want[host], k.ackWait)
		current, exists := have[host]
		next := filtersOf(cfg)
		switch {
		case exists && slices.Equal(current, next):
		case exists && len(gained(next, current)) > 0:
			losing = append(losing, host)
		default:
			rest = append(rest, host)
		}
	}
	var errs []error
	for _, host := range append(losing, rest...) {
		cfg := k.n.consumerConfig(host, want[host], k.ackWait)
		info, err := k.js.CreateOrUpdateConsumer(ctx, k.n.stream(), cfg)
		if _, existed := have[host]; err == nil && existed {
			err = k.goBack(ctx, stream, host, info.CachedInfo(), gained(have[host], filtersOf(cfg)))
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("the consumer of host %s: %w", host, consumerErr(err)))
		}
	}
	return errors.Join(errs...)
}

// goBack sends a consumer whose filter grew back for the copies waiting for
// its new subjects: a consumer does not return for copies it passed over
// before they matched (copies for an agent that waited on the hub before
// this host held it). It goes back no further than its ack floor, below
// which it has nothing unacknowledged; a copy it delivered since and is
// not acknowledged yet comes again, which its host's inbox absorbs. A new
// consumer starts at the first copy and needs none of this.
func (k *keeper) goBack(ctx context.Context, stream jetstream.Stream, host string, info *jetstream.ConsumerInfo, subjects []string) error {
	var first uint64
	for _, subject := range subjects {
		m, err := stream.GetMsg(ctx, 1, jetstream.WithGetMsgSubject(subject))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("look for copies waiting on %s: %w", subject, err)
		}
		if first == 0 || m.Sequence < first {
			first = m.Sequence
		}
	}
	if first == 0 || info == nil {
		return nil
	}
	_, err := k.js.ResetConsumerToSequence(ctx, k.n.stream(), host, min(first, info.AckFloor.Stream+1))
	return err
}

// gained is the subjects of next that are not in current.
func gained(current, next []string) []string {
	var out []string
	for _, s := range next {
		if !slices.Contains(current, s) {
			out = append(out, s)
		}
	}
	return out
}

// filtersOf is a consumer's filter subjects, sorted.
func filtersOf(cfg jetstream.ConsumerConfig) []string {
	out := slices.Clone(cfg.FilterSubjects)
	if cfg.FilterSubject != "" {
		out = append(out, cfg.FilterSubject)
	}
	slices.Sort(out)
	return out
}
