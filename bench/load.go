package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"switchboard/internal/atomicfile"
	"switchboard/mailbox"
)

// benchContent makes a message file of about 500 bytes, the size the floor
// in REFERENCE.md was measured with.
var benchContent = strings.Repeat("routing benchmark payload ", 12)

// sender posts messages from random agents to random other agents, as
// `switchboard send` would, and registers each with the inbox watch.
//
// It does the steps of mailbox.Store.Post itself (the same bytes, the same
// name, a temporary file in the sender's tmp/ linked into its outbox) for one
// reason: the clock must be read just before the link that makes the message
// visible. Timing around Post cannot work: with a fast router a quarter of
// the messages were delivered before Post returned, since the link comes
// before the return and the posting goroutine can wait for a CPU in between.
type sender struct {
	ws    *testbed
	watch *arrivals
	rng   *rand.Rand
	count int
}

func newSender(ws *testbed, watch *arrivals) *sender {
	return &sender{ws: ws, watch: watch, rng: rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))}
}

// staged is a message written to a temporary file, ready to be linked into
// its sender's outbox.
type staged struct {
	id, tmp, target string
}

// stage writes a message from the agent from to a random other agent into a
// temporary file in the sender's tmp/.
func (s *sender) stage(from string) (staged, error) {
	to := s.randomAgent()
	for to == from {
		to = s.randomAgent()
	}
	s.count++
	msg := &mailbox.Message{
		From:    from,
		To:      []string{to},
		Title:   fmt.Sprintf("bench message %d", s.count),
		Content: benchContent,
	}
	msg.Normalize(time.Now())
	data, err := msg.Encode()
	if err != nil {
		return staged{}, err
	}
	target := filepath.Join(s.ws.store.OutboxDir(from), mailbox.FileName(msg.Timestamp, msg.Priority, msg.ID))
	f, err := atomicfile.Create(target, atomicfile.Options{TmpDir: s.ws.store.TmpDir(from)})
	if err != nil {
		return staged{}, fmt.Errorf("post bench message: %w", err)
	}
	_, err = f.Write(data)
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		f.Cleanup()
		return staged{}, fmt.Errorf("post bench message: %w", err)
	}
	// Linked into the outbox by publish, when the clock has been read.
	return staged{id: msg.ID, tmp: f.Name(), target: target}, nil
}

// publish links a staged message into the outbox, the moment it is posted,
// and removes its temporary name unless keepTmp.
func (s *sender) publish(b *batch, m staged, keepTmp bool) error {
	ar := s.watch.expect(b, m.id)
	at := time.Now()
	err := os.Link(m.tmp, m.target)
	if err != nil {
		os.Remove(m.tmp)
		return fmt.Errorf("post bench message: %w", err)
	}
	s.watch.posted(ar, at)
	if !keepTmp {
		os.Remove(m.tmp)
	}
	return nil
}

// post sends one message from the agent from to a random other agent.
func (s *sender) post(b *batch, from string) error {
	m, err := s.stage(from)
	if err != nil {
		return err
	}
	return s.publish(b, m, false)
}

func (s *sender) randomAgent() string {
	return s.ws.agents[s.rng.IntN(len(s.ws.agents))]
}

// steady posts rate messages per second for the configured duration, paced
// by a ticker, and measures how long each takes to arrive.
func (s *sender) steady(ctx context.Context, cfg Config) (Latency, error) {
	n := cfg.steadyCount()
	b := s.watch.newBatch(n)
	tick := time.NewTicker(time.Second / time.Duration(cfg.Rate))
	defer tick.Stop()
	for range n {
		select {
		case <-ctx.Done():
			return Latency{}, ctx.Err()
		case <-tick.C:
		}
		if err := s.post(b, s.randomAgent()); err != nil {
			return Latency{}, err
		}
	}
	if err := s.watch.wait(ctx, b, cfg.Patience); err != nil {
		return Latency{}, err
	}
	return latencyOf(n, s.watch.settle(b)), nil
}

// burst posts n messages at once, each sender in turn, and measures the
// time from the first post to the last arrival. The messages are written to
// temporary files first, so that the posting is only the links and the
// router, not the sender, sets the pace.
func (s *sender) burst(ctx context.Context, cfg Config) (Throughput, error) {
	n := cfg.Burst
	msgs := make([]staged, 0, n)
	defer func() {
		for _, m := range msgs {
			os.Remove(m.tmp)
		}
	}()
	for i := range n {
		if i%64 == 0 && ctx.Err() != nil {
			return Throughput{}, ctx.Err()
		}
		m, err := s.stage(s.ws.agents[i%len(s.ws.agents)])
		if err != nil {
			return Throughput{}, err
		}
		msgs = append(msgs, m)
	}
	b := s.watch.newBatch(n)
	start := time.Now()
	for _, m := range msgs {
		if err := s.publish(b, m, true); err != nil {
			return Throughput{}, err
		}
	}
	posting := time.Since(start)
	if err := s.watch.wait(ctx, b, cfg.Patience); err != nil {
		return Throughput{}, err
	}
	out := s.watch.settle(b)
	t := Throughput{Count: n, Lost: out.lost, Posting: posting}
	if seen := n - out.lost; seen > 0 {
		t.Elapsed = out.last.Sub(start)
		t.PerSecond = float64(seen) / t.Elapsed.Seconds()
	}
	return t, nil
}
