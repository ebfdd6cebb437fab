package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"switchboard/mailbox"
)

// arrivals watches the inbox of every agent of a workspace and notes when
// each expected message appears there, by the id in its file name: a message
// is delivered when the recipient can see it.
type arrivals struct {
	fsw      *fsnotify.Watcher
	inboxes  []string
	progress io.Writer
	stopped  chan struct{}

	mu      sync.Mutex
	waiting map[string]*arrival // by message id, until seen or given up
}

// arrival is one message a run waits for.
type arrival struct {
	posted time.Time // when it entered the outbox
	seen   time.Time // when its inbox showed it; zero while missing
	batch  *batch
}

// batch is the messages of one run, waited for together.
type batch struct {
	members []*arrival
	missing int
	last    time.Time     // the latest arrival
	all     chan struct{} // closed when nothing is missing
	moved   chan struct{} // signalled on every arrival, so that waits can time out on silence
}

// watchInboxes watches the inbox folders of every agent of ws.
func watchInboxes(ws *testbed, progress io.Writer) (*arrivals, error) {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch inboxes: %w", err)
	}
	if progress == nil {
		progress = io.Discard
	}
	a := &arrivals{fsw: fsw, progress: progress, stopped: make(chan struct{}), waiting: make(map[string]*arrival)}
	for _, agent := range ws.agents {
		dir := ws.store.InboxDir(agent)
		if err := fsw.Add(dir); err != nil {
			fsw.Close()
			return nil, fmt.Errorf("watch inbox of %s: %w", agent, err)
		}
		a.inboxes = append(a.inboxes, dir)
	}
	go a.loop()
	return a, nil
}

func (a *arrivals) loop() {
	defer close(a.stopped)
	for {
		select {
		case ev, ok := <-a.fsw.Events:
			if !ok {
				return
			}
			at := time.Now()
			// A rename or link into the folder arrives as Create.
			if !ev.Has(fsnotify.Create) {
				continue
			}
			if info, ok := mailbox.ParseFileName(filepath.Base(ev.Name)); ok {
				a.arrived(info.ID, at)
			}
		case err, ok := <-a.fsw.Errors:
			if !ok {
				return
			}
			// Most likely an overflow of the kernel's queue: events were
			// lost, so look at every inbox instead.
			n := a.rescan()
			fmt.Fprintf(a.progress, "  inbox watch: %v; rescanned the inboxes, %d latencies are upper bounds\n", err, n)
		}
	}
}

// rescan marks every expected message found in an inbox as seen now, and
// returns how many it found.
func (a *arrivals) rescan() int {
	found := 0
	for _, dir := range a.inboxes {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		at := time.Now()
		for _, e := range entries {
			if info, ok := mailbox.ParseFileName(e.Name()); ok && a.arrived(info.ID, at) {
				found++
			}
		}
	}
	return found
}

// newBatch starts a set of n messages to wait for; n of them must be
// expected before all of them can have arrived.
func (a *arrivals) newBatch(n int) *batch {
	return &batch{members: make([]*arrival, 0, n), missing: n, all: make(chan struct{}), moved: make(chan struct{}, 1)}
}

// expect registers a message before it is posted, so that the inbox watch
// knows it however fast it arrives.
func (a *arrivals) expect(b *batch, id string) *arrival {
	ar := &arrival{batch: b}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.waiting[id] = ar
	b.members = append(b.members, ar)
	return ar
}

// posted notes when an expected message entered the outbox.
func (a *arrivals) posted(ar *arrival, at time.Time) {
	a.mu.Lock()
	ar.posted = at
	a.mu.Unlock()
}

// arrived notes that the message id was seen; it reports whether the
// message was expected and not seen before.
func (a *arrivals) arrived(id string, at time.Time) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	ar, ok := a.waiting[id]
	if !ok {
		return false
	}
	delete(a.waiting, id)
	ar.seen = at
	b := ar.batch
	b.last = at
	b.missing--
	if b.missing == 0 {
		close(b.all)
	}
	select {
	case b.moved <- struct{}{}:
	default:
	}
	return true
}

// wait returns when every message of b has arrived, or when none arrived for
// patience: the ones still missing are lost. It fails only when ctx is done.
func (a *arrivals) wait(ctx context.Context, b *batch, patience time.Duration) error {
	silence := time.NewTimer(patience)
	defer silence.Stop()
	for {
		select {
		case <-b.all:
			return nil
		case <-b.moved:
			silence.Reset(patience)
		case <-silence.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// outcome is what became of a batch: the latency of each message seen, in
// the order posted, and how many were lost.
type outcome struct {
	latencies []time.Duration
	lost      int
	last      time.Time
}

// settle gives up on the messages of b still missing and returns the outcome.
func (a *arrivals) settle(b *batch) outcome {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out outcome
	for id, ar := range a.waiting {
		if ar.batch == b {
			delete(a.waiting, id)
		}
	}
	for _, ar := range b.members {
		if ar.seen.IsZero() {
			out.lost++
			continue
		}
		out.latencies = append(out.latencies, ar.seen.Sub(ar.posted))
	}
	out.last = b.last
	return out
}

func (a *arrivals) close() {
	a.fsw.Close()
	<-a.stopped
}
