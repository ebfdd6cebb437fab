package hub

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"switchboard/internal/watch"
)

// A host's view of the team (view.go) follows the hub's feed: each bucket
// of claims, states and shared values republishes every message it stored
// on the team's feed, under the subject only the hub publishes to, with
// the message's place in the bucket (its revision). The host reads every
// key once when it joins, then applies what the feed tells, each key's
// newest revision winning; it reads every key again when it may have missed
// news: its connection came back, it was too slow to take the feed, or,
// just after a read, the bucket holds a revision the feed never told.
// The feed needs no consumer on the hub, and a team at rest exchanges
// nothing on it.

// feedQueue holds what the feed told and the follower has not applied
// yet; the subscription's handler only appends, so that it is never slow.
type feedQueue struct {
	mu     sync.Mutex
	msgs   []*nats.Msg
	told   map[string]uint64 // the newest revision told of each bucket
	ready  chan struct{}     // a message was appended
	resync chan struct{}     // the follower may have missed news
}

func newFeedQueue() *feedQueue {
	return &feedQueue{told: make(map[string]uint64), ready: make(chan struct{}, 1), resync: make(chan struct{}, 1)}
}

func (q *feedQueue) push(m *nats.Msg) {
	bucket, _, rev, ok := feedOrigin(m)
	q.mu.Lock()
	q.msgs = append(q.msgs, m)
	if ok && rev > q.told[bucket] {
		q.told[bucket] = rev
	}
	q.mu.Unlock()
	signal(q.ready)
}

func (q *feedQueue) take() []*nats.Msg {
	q.mu.Lock()
	defer q.mu.Unlock()
	msgs := q.msgs
	q.msgs = nil
	return msgs
}

func (q *feedQueue) toldOf(bucket string) uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.told[bucket]
}

// missed asks the follower to read every key again.
func (q *feedQueue) missed() { signal(q.resync) }

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// feedOrigin is the bucket, key and revision a message of the feed tells
// of, from the headers the hub puts on it.
func feedOrigin(m *nats.Msg) (bucket, key string, rev uint64, ok bool) {
	subject, found := strings.CutPrefix(m.Header.Get(jetstream.SubjectHeader), "$KV.")
	if !found {
		return "", "", 0, false
	}
	bucket, key, found = strings.Cut(subject, ".")
	rev, err := strconv.ParseUint(m.Header.Get(jetstream.SequenceHeader), 10, 64)
	return bucket, key, rev, found && err == nil && key != ""
}

// fedBuckets are the buckets the view follows.
func (n names) fedBuckets() []string { return []string{n.claims(), n.presence(), n.shared()} }

// watchTeam keeps the view until the Conn closes.
func (c *Conn) watchTeam() {
	c.wg.Go(c.followFeed)
}

// followFeed applies the feed to the view, reading every key again when
// it may have missed news.
func (c *Conn) followFeed() {
	sub, err := c.nc.Subscribe(c.names.feedAll(), c.feed.push)
	if err != nil {
		return // the connection closed
	}
	defer sub.Unsubscribe()
	_ = sub.SetPendingLimits(-1, -1) // the handler only appends: never too slow
	for c.closed.Err() == nil {
		f := &follower{c: c, revs: make(map[string]map[string]uint64)}
		read := c.flushFeed() == nil && f.read()
		c.view.settle()
		if read && f.apply() && f.complete() {
			f.follow()
		}
		c.view.unsync()
		if watch.Sleep(c.closed, retryWatch) != nil {
			return
		}
	}
}

// retryWatch is how long the view waits before it reads the team again
// after a read that failed.
const retryWatch = time.Second

// flushFeed makes sure the hub has this host's interest in the feed before
// the team is read, so that no news told meanwhile is missed. It waits for
// the hub at most flushWait, and not at all once the Conn closes: a Close
// while the hub is away does not wait out the flush.
func (c *Conn) flushFeed() error {
	ctx, cancel := context.WithTimeout(c.closed, flushWait)
	defer cancel()
	return c.nc.FlushWithContext(ctx)
}

// flushWait bounds flushFeed, as nats.go bounds a flush of its own.
const flushWait = 10 * time.Second

// follower is one reading of the team and the feed that follows it.
type follower struct {
	c *Conn
	// revs is the revision applied of each key, by bucket; under the key
	// "", the newest revision of the bucket applied: the next the feed
	// tells must be the one after it.
	revs map[string]map[string]uint64
}

// follow applies the feed until the follower may have missed news, or
// the Conn closes.
func (f *follower) follow() {
	for {
		select {
		case <-f.c.closed.Done():
			return
		case <-f.c.feed.resync:
			return
		case <-f.c.feed.ready:
			if !f.apply() {
				return
			}
		}
	}
}

// read reads every key of the followed buckets from the leaders of their
// streams, and makes the view what it read.
func (f *follower) read() bool {
	c := f.c
	ctx, cancel := context.WithTimeout(c.closed, resyncWait)
	defer cancel()
	ctx, cancelLink := c.linked(ctx)
	defer cancelLink()
	// What the feed told before this read is in it, or newer.
	select {
	case <-c.feed.resync:
	default:
	}
	for _, bucket := range c.names.fedBuckets() {
		entries, last, err := c.readBucket(ctx, bucket)
		if err != nil {
			return false
		}
		fresh := make(map[string]jetstream.KeyValueEntry, len(entries))
		f.revs[bucket] = make(map[string]uint64, len(entries)+1)
		for _, e := range entries {
			f.revs[bucket][e.key] = e.rev
			if e.op == jetstream.KeyValuePut {
				fresh[e.key] = e
			}
		}
		f.revs[bucket][""] = last
		if bucket == c.names.claims() {
			c.view.claimsApplied.Store(last)
		}
		c.view.mu.Lock()
		c.view.replace(bucket, c.names, fresh)
		c.view.synced[bucket] = true
		c.view.mu.Unlock()
	}
	c.view.wake()
	return true
}

// resyncWait bounds one reading of every key of the team.
const resyncWait = 30 * time.Second

// readBucket reads the newest message of every key of bucket from the
// leader of its stream, and the stream's newest revision before.
func (c *Conn) readBucket(ctx context.Context, bucket string) ([]storedEntry, uint64, error) {
	st, err := c.js.Stream(ctx, kvStream(bucket))
	if err != nil {
		return nil, 0, err
	}
	info, err := st.Info(ctx, jetstream.WithSubjectFilter(kvSubject(bucket, ">")))
	if err != nil {
		return nil, 0, err
	}
	prefix := kvSubject(bucket, "")
	// A stream kept by one node is read directly, with no request to the
	// API (which serves every host of the team in turn): its one node is
	// its leader. A replicated one is read from its leader, as a follower
	// may lag.
	last := leaderLast
	if info.Config.Replicas <= 1 {
		last = directLast
	}
	keys := make(chan string)
	var mu sync.Mutex
	var out []storedEntry
	var firstErr error
	var wg sync.WaitGroup
	for range min(readersAtOnce, max(len(info.State.Subjects), 1)) {
		wg.Go(func() {
			for key := range keys {
				e, err := last(ctx, c.nc, c.names, bucket, key)
				mu.Lock()
				switch {
				case err == nil:
					out = append(out, e)
				case firstErr == nil && !errors.Is(err, jetstream.ErrKeyNotFound):
					firstErr = err
				}
				mu.Unlock()
			}
		})
	}
	for subject := range info.State.Subjects {
		keys <- strings.TrimPrefix(subject, prefix)
	}
	close(keys)
	wg.Wait()
	return out, info.State.LastSeq, firstErr
}

// readersAtOnce bounds the reads of one bucket in flight.
const readersAtOnce = 16

// apply applies what the feed told since the last call: each key's newest
// revision wins. The revisions of a bucket follow each other with no gap,
// and the feed tells them in order: a gap is news missed, and apply
// returns false. A claim whose news does not say when the hub stored it
// (a stock server older than 2.10 does not) is read again from the
// leader, for that time.
func (f *follower) apply() bool {
	c := f.c
	changed := false
	defer func() {
		if changed {
			c.view.wake()
		}
	}()
	for _, m := range c.feed.take() {
		bucket, key, rev, ok := feedOrigin(m)
		revs := f.revs[bucket]
		if !ok || revs == nil || rev <= revs[""] {
			continue
		}
		if rev != revs[""]+1 {
			return false
		}
		if rev <= revs[key] {
			revs[""] = rev
			f.applied(bucket, rev)
			continue // read newer already
		}
		e := storedEntry{bucket: bucket, key: key, value: m.Data, rev: rev, op: operation(m.Header)}
		ts, err := time.Parse(time.RFC3339Nano, m.Header.Get(jetstream.TimeStampHeaer))
		e.created = ts
		if bucket == c.names.claims() && err != nil {
			ctx, cancel := context.WithTimeout(c.closed, resyncWait)
			read, err := leaderLast(ctx, c.nc, c.names, bucket, key)
			cancel()
			if err != nil || read.rev < rev {
				return false
			}
			e = read
		}
		revs[key], revs[""] = e.rev, rev
		c.view.mu.Lock()
		c.view.apply(bucket, c.names, e)
		c.view.mu.Unlock()
		f.applied(bucket, rev)
		changed = true
	}
	return true
}

// applied records that the view holds bucket up to rev.
func (f *follower) applied(bucket string, rev uint64) {
	if bucket == f.c.names.claims() {
		f.c.view.claimsApplied.Store(rev)
	}
}

// complete reports whether the feed told of every revision the buckets
// hold after they were read. News sent before the hub heard of this
// host's subscription is lost (a node of a cluster learns of it a moment
// later), and a loss is seen as a gap only when more news follows.
func (f *follower) complete() bool {
	c := f.c
	ctx, cancel := context.WithTimeout(c.closed, resyncWait)
	defer cancel()
	for _, bucket := range c.names.fedBuckets() {
		st, err := c.js.Stream(ctx, kvStream(bucket))
		if err != nil {
			return false
		}
		last := st.CachedInfo().State.LastSeq
		if last <= f.revs[bucket][""] {
			continue
		}
		// Told, or on its way: wait for it a moment.
		if !watch.Until(ctx, 10*time.Millisecond, feedLag, func() bool { return c.feed.toldOf(bucket) >= last }) || !f.apply() {
			return false
		}
	}
	return true
}

// feedLag bounds how long news on its way takes to arrive.
const feedLag = time.Second
