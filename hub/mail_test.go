package hub

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"switchboard/hub/embedded"
)

func TestOneCopyCrossesHosts(t *testing.T) {
	s := startHub(t, t.TempDir())
	a := join(t, s, "a", "alice")
	b := join(t, s, "b", "bob")
	got := receiveInto(t, b, nil)
	if err := a.Publish(ctxFor(t, 5*time.Second), Copy{ID: "m1", To: "bob", From: "alice", Body: []byte("hi")}); err != nil {
		t.Fatal(err)
	}
	select {
	case d := <-got:
		if d.ID != "m1" || d.To != "bob" || d.From != "alice" || d.Host != "a" || string(d.Body) != "hi" {
			t.Fatalf("delivered %+v, want m1 from alice on a to bob saying hi", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the copy did not arrive within 10s")
	}
}

// counter records deliveries by "<id>/<to>".
type counter struct {
	mu   sync.Mutex
	seen map[string]int
	all  int
}

func (c *counter) add(d Delivered) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil {
		c.seen = map[string]int{}
	}
	c.seen[d.ID+"/"+d.To]++
	c.all++
}

func (c *counter) distinct() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.seen)
}

func (c *counter) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.all
}

func (c *counter) count(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen[key]
}

func receiveCounting(t *testing.T, c *Conn, n *counter) {
	got := receiveInto(t, c, nil)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case d := <-got:
				n.add(d)
			case <-stop:
				return
			}
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
}

func TestThousandsOfCopiesArriveOnceAndRepublishIsDropped(t *testing.T) {
	s := startHub(t, t.TempDir())
	a := join(t, s, "a", "alice")
	b := join(t, s, "b", "bob", "bea")
	var n counter
	receiveCounting(t, b, &n)

	const copies = 3000
	ctx := ctxFor(t, 60*time.Second)
	for i := range copies {
		to := []string{"bob", "bea"}[i%2]
		if err := a.Publish(ctx, Copy{ID: fmt.Sprintf("m%d", i), To: to, From: "alice", Body: []byte("x")}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 30*time.Second, "3000 copies delivered", func() bool { return n.distinct() == copies })

	// A master that crashed after publishing publishes its last copies again.
	for i := copies - 100; i < copies; i++ {
		to := []string{"bob", "bea"}[i%2]
		if err := a.Publish(ctx, Copy{ID: fmt.Sprintf("m%d", i), To: to, From: "alice", Body: []byte("x")}); err != nil {
			t.Fatalf("re-publish of a duplicate must succeed: %v", err)
		}
	}
	// A marker sent after the duplicates arrives after them, if they arrive.
	if err := a.Publish(ctx, Copy{ID: "marker", To: "bob", From: "alice"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the marker delivered", func() bool { return n.count("marker/bob") == 1 })
	if got := n.total(); got != copies+1 {
		t.Fatalf("delivered %d copies, want %d: the hub delivered duplicates", got, copies+1)
	}
}

func TestFailedHandlerGetsTheCopyAgain(t *testing.T) {
	s := startHub(t, t.TempDir())
	a := join(t, s, "a", "alice")
	b := join(t, s, "b", "bob")
	var failed atomic.Bool
	got := receiveInto(t, b, func(Delivered) error {
		if failed.CompareAndSwap(false, true) {
			return errors.New("disk full")
		}
		return nil
	})
	if err := a.Publish(ctxFor(t, 5*time.Second), Copy{ID: "m1", To: "bob", From: "alice"}); err != nil {
		t.Fatal(err)
	}
	select {
	case d := <-got:
		if d.ID != "m1" || !failed.Load() {
			t.Fatalf("delivered %+v after failed=%v", d, failed.Load())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the copy whose handler failed did not come back within 10s")
	}
}

func TestCopyHandledButNotAckedComesBackAfterACrash(t *testing.T) {
	s := startHubWith(t, embedded.Config{Dir: t.TempDir()}, TeamService{ackWait: time.Second})
	a := join(t, s, "a", "alice")
	rules := []byte("rules v1\n")
	b, err := joinWith(s, "b", JoinConfig{Agents: []string{"bob"}, RulesText: rules})
	if err != nil {
		t.Fatal(err)
	}
	// The handler stores the copy, then the master dies before the ack.
	handled := make(chan Delivered, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	recvDone := make(chan error, 1)
	go func() {
		recvDone <- b.Receive(ctx, func(_ context.Context, d Delivered) error {
			handled <- d
			b.Close()
			return nil
		})
	}()
	if err := a.Publish(ctxFor(t, 5*time.Second), Copy{ID: "m1", To: "bob", From: "alice"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-handled:
	case <-time.After(10 * time.Second):
		t.Fatal("the copy did not arrive within 10s")
	}
	if err := <-recvDone; !errors.Is(err, ErrClosed) {
		t.Fatalf("Receive on a closed connection returned %v, want ErrClosed", err)
	}

	again, err := joinWith(s, "b", JoinConfig{Agents: []string{"bob"}, RulesText: rules})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	select {
	case d := <-receiveInto(t, again, nil):
		if d.ID != "m1" {
			t.Fatalf("delivered %+v, want m1 again", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the unacknowledged copy was not delivered again within 10s")
	}
}

func TestPublishFailsWhileTheHubIsDown(t *testing.T) {
	dir := t.TempDir()
	s := startHub(t, dir)
	a := join(t, s, "a", "alice")
	join(t, s, "b", "bob")
	s.Close()
	start := time.Now()
	err := a.Publish(ctxFor(t, 3*time.Second), Copy{ID: "m1", To: "bob", From: "alice"})
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("publish with the hub down returned %v, want ErrUnreachable", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("publish took %s to fail, want it to fail at once", d)
	}
}

func TestHubRestartMidStreamLosesNothing(t *testing.T) {
	dir := t.TempDir()
	s := startHub(t, dir)
	addr := s.Addr()
	a := join(t, s, "a", "alice")
	b := join(t, s, "b", "bob")
	var n counter
	receiveCounting(t, b, &n)

	const copies = 1000
	retried := map[string]bool{} // ids whose first publish failed
	published := make(chan int, copies)
	var pubErr error
	pubDone := make(chan struct{})
	go func() {
		defer close(pubDone)
		deadline := time.Now().Add(60 * time.Second)
		for i := range copies {
			id := fmt.Sprintf("m%d", i)
			for attempt := 0; ; attempt++ {
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				err := a.Publish(ctx, Copy{ID: id, To: "bob", From: "alice"})
				cancel()
				if err == nil {
					break
				}
				retried[id+"/bob"] = true
				if time.Now().After(deadline) {
					pubErr = fmt.Errorf("copy %s still unpublished: %w", id, err)
					return
				}
				time.Sleep(20 * time.Millisecond) // the caller's retry pace
			}
			published <- i
		}
	}()
	for range 300 {
		<-published
	}
	s.Close()
	startHubWith(t, embedded.Config{Dir: dir, Listen: addr}, TeamService{})
	<-pubDone
	if pubErr != nil {
		t.Fatal(pubErr)
	}
	if len(retried) == 0 {
		t.Log("no publish failed during the restart")
	}
	waitFor(t, 30*time.Second, "1000 copies delivered", func() bool { return n.distinct() == copies })
	for i := range copies {
		key := fmt.Sprintf("m%d/bob", i)
		if got := n.count(key); got != 1 && !retried[key] {
			t.Errorf("%s published once was delivered %d times", key, got)
		}
	}
	t.Logf("%d publishes retried, %d deliveries for %d copies", len(retried), n.total(), copies)
}

func BenchmarkPublishReceive(b *testing.B) {
	s := startHubWith(b, embedded.Config{Dir: b.TempDir()}, TeamService{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pa, err := Join(ctx, s.URL("a"), JoinConfig{Agents: []string{"alice"}})
	if err != nil {
		b.Fatal(err)
	}
	defer pa.Close()
	pb, err := Join(ctx, s.URL("b"), JoinConfig{Agents: []string{"bob"}})
	if err != nil {
		b.Fatal(err)
	}
	defer pb.Close()
	got := make(chan struct{})
	rctx, rcancel := context.WithCancel(ctx)
	recvDone := make(chan struct{})
	go func() {
		defer close(recvDone)
		_ = pb.Receive(rctx, func(context.Context, Delivered) error { got <- struct{}{}; return nil })
	}()
	body := make([]byte, 512)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := pa.Publish(ctx, Copy{ID: fmt.Sprintf("m%d", i), To: "bob", From: "alice", Body: body}); err != nil {
			b.Fatal(err)
		}
		<-got
	}
	b.StopTimer()
	rcancel()
	<-recvDone
}

// TestACopyOutlivesItsSendersLeaving: alice leaves host a while her copy
// waits for bob's host; it still arrives, and alice is no longer a's.
func TestACopyOutlivesItsSendersLeaving(t *testing.T) {
	s := startHub(t, t.TempDir())
	a := join(t, s, "a", "alice")
	b := join(t, s, "b", "bob")
	if err := a.Publish(ctxFor(t, 5*time.Second), Copy{ID: "m1", To: "bob", From: "alice", Body: []byte("before I go")}); err != nil {
		t.Fatal(err)
	}
	if err := a.SetAgents(ctxFor(t, 5*time.Second), nil, nil); err != nil {
		t.Fatal(err)
	}
	got := receiveInto(t, b, nil)
	select {
	case d := <-got:
		if d.ID != "m1" {
			t.Fatalf("delivered %+v", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the copy of an agent that left its host did not arrive")
	}
	members, err := b.Team(ctxFor(t, 5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range members {
		if m.Agent == "alice" {
			t.Errorf("alice is still listed, on %s", m.Host)
		}
	}
	c := join(t, s, "c", "alice") // and may run elsewhere now
	c.Close()
}
