package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"switchboard/workspace"
)

// router is what moves messages from outboxes to inboxes during a run: the
// floor relay or the master process.
type router interface {
	// exited is closed when the router ended on its own; nil if it cannot.
	exited() <-chan struct{}
	stop() error
}

// readyTimeout bounds the wait for a router to deliver its first message.
const readyTimeout = 15 * time.Second

// Run measures the floor and the master (when cfg.Binary is set) in turn,
// durable first, then without fsync, and last the durable master's CPU use
// while idle. Every run has a workspace of its own.
//
// The workspaces are removed only at the end. On ext4 without a journal (the
// machine this was written on has one) the inode allocator skips, one by
// one, inodes freed in the last seconds to minutes: removing a workspace of
// thousands of files made the next run's file creations ten times slower.
// Taking floor and master in turn spreads what is left of that effect (other
// programs' deletions) evenly between them.
//
// Run fails on a bad Config, when a router cannot start or stops on its own,
// and when ctx is done; lost messages are counted, not failures.
func Run(ctx context.Context, cfg Config) (res *Result, err error) {
	cfg, err = cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	var sessions []*session
	defer func() {
		for _, s := range sessions {
			err = errors.Join(err, s.close())
		}
		if err != nil {
			res = nil
		}
	}()
	res = &Result{Agents: cfg.Agents, Rate: cfg.Rate, Duration: cfg.Duration, Burst: cfg.Burst}
	if cfg.Binary != "" {
		res.Master = &Router{}
	}
	var idle *masterProcess
	for _, durable := range []bool{true, false} {
		s, err := cfg.open(ctx, label("floor", durable), func(ws *testbed) (router, error) {
			return startFloor(ws, durable)
		})
		if s != nil {
			sessions = append(sessions, s)
		}
		if err != nil {
			return nil, err
		}
		v, err := s.measure(ctx)
		if err != nil {
			return nil, err
		}
		res.Floor.set(durable, v)
		if err := s.stop(); err != nil {
			return nil, err
		}
		if cfg.Binary == "" {
			continue
		}
		var p *masterProcess
		s, err = cfg.open(ctx, label("master", durable), func(ws *testbed) (router, error) {
			started, err := startMaster(cfg.Binary, ws.root, durable, nil)
			p = started
			return started, err
		})
		if s != nil {
			sessions = append(sessions, s)
		}
		if err != nil {
			return nil, err
		}
		if pid, running := workspace.New(s.ws.root).MasterRunning(); !running || pid != p.pid() {
			return nil, fmt.Errorf("%s: the workspace lock is not held by the master started (pid %d), but by pid %d", s.label, p.pid(), pid)
		}
		if v, err = s.measure(ctx); err != nil {
			return nil, err
		}
		res.Master.set(durable, v)
		// The default, durable master stays up for the idle measurement.
		if durable && cfg.Idle > 0 {
			idle = p
		} else if err := s.stop(); err != nil {
			return nil, err
		}
	}
	if idle != nil {
		if res.IdleCPU, err = cfg.measureIdle(ctx, label("master", true), idle); err != nil {
			return nil, err
		}
	}
	res.check()
	return res, nil
}

func (r *Router) set(durable bool, v Variant) {
	if durable {
		r.Durable = v
	} else {
		r.NoFsync = v
	}
}

func label(name string, durable bool) string {
	if durable {
		return name + ", durable"
	}
	return name + ", no fsync"
}

// session is one router on one workspace, with the inboxes watched.
type session struct {
	cfg    Config
	label  string
	ws     *testbed
	watch  *arrivals
	router router
	send   *sender
}

// open makes a workspace, watches its inboxes, starts a router on it and
// waits until the router has delivered a first message. On failure it
// returns the session too, if it made one, for the caller to close.
func (c Config) open(ctx context.Context, label string, start func(*testbed) (router, error)) (s *session, err error) {
	ws, err := newTestbed(c.Dir, c.Agents)
	if err != nil {
		return nil, err
	}
	s = &session{cfg: c, label: label, ws: ws}
	if s.watch, err = watchInboxes(s.ws, c.Progress); err != nil {
		return s, err
	}
	r, err := start(s.ws)
	if err != nil {
		return s, fmt.Errorf("%s: %w", label, err)
	}
	s.router = r
	s.send = newSender(s.ws, s.watch)
	return s, s.awaitReady(ctx)
}

// awaitReady posts a probe and waits until it arrives: only then are the
// router's watches known to be in place.
func (s *session) awaitReady(ctx context.Context) error {
	b := s.watch.newBatch(1)
	if err := s.send.post(b, s.ws.agents[0]); err != nil {
		return err
	}
	defer s.watch.settle(b)
	timer := time.NewTimer(readyTimeout)
	defer timer.Stop()
	select {
	case <-b.all:
		fmt.Fprintf(s.cfg.Progress, "%s: ready\n", s.label)
		return nil
	case <-s.router.exited():
		err := s.router.stop()
		s.router = nil
		return fmt.Errorf("%s: %w", s.label, err)
	case <-timer.C:
		return fmt.Errorf("%s: no message delivered within %s of the start", s.label, readyTimeout)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// measure runs the steady rate, then the burst.
func (s *session) measure(ctx context.Context) (v Variant, err error) {
	c := s.cfg
	if v.Steady, err = s.send.steady(ctx, c); err != nil {
		return v, fmt.Errorf("%s: %w", s.label, err)
	}
	l := v.Steady
	fmt.Fprintf(c.Progress, "%s: steady %d msg/s for %s: p50 %s, p99 %s, max %s, %d of %d lost\n",
		s.label, c.Rate, c.Duration, round(l.P50), round(l.P99), round(l.Max), l.Lost, l.Count)
	if v.Burst, err = s.send.burst(ctx, c); err != nil {
		return v, fmt.Errorf("%s: %w", s.label, err)
	}
	t := v.Burst
	fmt.Fprintf(c.Progress, "%s: burst of %d: %.0f msg/s over %s (posting took %s), %d lost\n",
		s.label, t.Count, t.PerSecond, round(t.Elapsed), round(t.Posting), t.Lost)
	return v, nil
}

// measureIdle reads the master's CPU time before and after a quiet window.
func (c Config) measureIdle(ctx context.Context, label string, p *masterProcess) (*IdleCPU, error) {
	before, err := p.cpuTime()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	timer := time.NewTimer(c.Idle)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-p.exited():
		return nil, p.failure()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	after, err := p.cpuTime()
	if err != nil {
		return nil, err
	}
	window := time.Since(start)
	idle := &IdleCPU{Window: window, CPU: after - before, Percent: 100 * (after - before).Seconds() / window.Seconds()}
	fmt.Fprintf(c.Progress, "%s: idle for %s: %s of CPU, %.2f %% of a core\n", label, round(window), idle.CPU, idle.Percent)
	return idle, nil
}

// stop stops the router and the watch, whichever were started, and keeps
// the workspace.
func (s *session) stop() error {
	var err error
	if s.router != nil {
		if err = s.router.stop(); err != nil {
			err = fmt.Errorf("%s: %w", s.label, err)
		}
		s.router = nil
	}
	if s.watch != nil {
		s.watch.close()
		s.watch = nil
	}
	return err
}

// close stops the session and removes its workspace.
func (s *session) close() error {
	return errors.Join(s.stop(), s.ws.remove())
}

func round(d time.Duration) time.Duration {
	if d < 10*time.Millisecond {
		return d.Round(time.Microsecond)
	}
	return d.Round(time.Millisecond)
}
