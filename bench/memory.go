package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"

	"switchboard/mailbox"
)

// MemoryConfig says how many messages a routing master's memory is followed
// over.
type MemoryConfig struct {
	Binary string // the switchboard binary whose master is measured
	// Baseline, when set, is another switchboard binary (an older build)
	// whose master routes the same load after it, for figures beside.
	Baseline string
	Messages int // messages routed (DefaultMemoryMessages when 0)
	Agents   int // the team (DefaultMemoryAgents when 0)
	Body     int // bytes of each message's content (DefaultMemoryBody when 0)
	// Settle is how long the master is left once the mail sent so far was
	// read, before its memory is read: it checks each file moved to read/
	// (DefaultMemorySettle when 0).
	Settle   time.Duration
	Dir      string    // where the workspaces are made (the system's temporary folder when "")
	Progress io.Writer // where progress goes; nil for nowhere
}

// Defaults of the memory run: the load under which the master once kept
// half a kilobyte a message.
const (
	DefaultMemoryMessages = 200_000
	DefaultMemoryAgents   = 10
	DefaultMemoryBody     = 2 << 10
	DefaultMemorySettle   = time.Second
)

// memoryWindow bounds the messages posted and not yet read: each recipient
// reads its mail as it comes, and the master never has a backlog to hold.
const memoryWindow = 200

// memorySamples is how many times the master's memory is read: at each
// fifth of the messages, the first at 20 %.
const memorySamples = 5

// memoryStall bounds the wait for the next message read: a master that
// routes nothing for this long has failed.
const memoryStall = time.Minute

// MemoryResult is the resident memory of a master routing a long run of
// messages, each read by its recipient as it arrives, at each fifth of the
// run; and the same of the baseline binary's master, when one was given.
type MemoryResult struct {
	Agents   int        `json:"agents"`
	Messages int        `json:"messages"`
	Body     int        `json:"body_bytes"`
	Master   MemoryRun  `json:"master"`
	Baseline *MemoryRun `json:"baseline,omitempty"`
}

// MemoryRun is one master's memory along the run.
type MemoryRun struct {
	Samples []MemorySample `json:"samples"`
	Elapsed time.Duration  `json:"elapsed_ns"`
}

// MemorySample is the master's resident memory (VmRSS) once Routed
// messages were routed and read.
type MemorySample struct {
	Routed int   `json:"routed"`
	RSS    int64 `json:"rss_bytes"`
}

// Growth is how much more resident memory the master held at the end than
// at the first sample (20 % of the run).
func (r MemoryRun) Growth() int64 {
	if len(r.Samples) == 0 {
		return 0
	}
	return r.Samples[len(r.Samples)-1].RSS - r.Samples[0].RSS
}

// AddMemory adds the memory run's figures to the result, and checks them.
func (r *Result) AddMemory(m *MemoryResult) {
	r.Memory = m
	r.check()
}

// checkMemory checks that the master's memory did not grow with the
// messages it routed.
func (r *Result) checkMemory() {
	run := r.Memory.Master
	r.Checks = append(r.Checks, Check{
		Row:    RowMemoryGrowth,
		Target: fmt.Sprintf("≤ %d MiB more at 100 %% than at 20 %%", TargetMemoryGrowth>>20),
		Pass:   len(run.Samples) == memorySamples && run.Growth() <= TargetMemoryGrowth,
	})
}

// RunMemory starts the master on a workspace of cfg.Agents agents and routes
// cfg.Messages messages of cfg.Body bytes from each agent in turn to
// another, each read (moved to read/) by its recipient as it arrives, and
// reads the master's resident memory at each fifth of them; then the same
// with the baseline binary's master, when one was given.
func RunMemory(ctx context.Context, cfg MemoryConfig) (*MemoryResult, error) {
	cfg = cfg.withDefaults()
	res := &MemoryResult{Agents: cfg.Agents, Messages: cfg.Messages, Body: cfg.Body}
	var err error
	if res.Master, err = cfg.routeThrough(ctx, "memory: master", cfg.Binary); err != nil {
		return nil, err
	}
	if cfg.Baseline != "" {
		base, err := cfg.routeThrough(ctx, "memory: baseline", cfg.Baseline)
		if err != nil {
			return nil, err
		}
		res.Baseline = &base
	}
	return res, nil
}

// check checks the numbers a person gives, as given: a zero is no default.
func (cfg MemoryConfig) check() error {
	if cfg.Messages < memorySamples {
		return want("memory messages", "must be at least %d: the memory is read at each fifth of them", memorySamples)
	}
	return nil
}

func (cfg MemoryConfig) withDefaults() MemoryConfig {
	if cfg.Messages <= 0 {
		cfg.Messages = DefaultMemoryMessages
	}
	cfg.Messages = max(cfg.Messages, memorySamples)
	if cfg.Agents < 2 {
		cfg.Agents = DefaultMemoryAgents
	}
	cfg.Agents = min(cfg.Agents, maxAgents)
	if cfg.Body <= 0 {
		cfg.Body = DefaultMemoryBody
	}
	if cfg.Settle <= 0 {
		cfg.Settle = DefaultMemorySettle
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	return cfg
}

// routeThrough runs one binary's master on a workspace of its own through
// the whole run. The master does not fsync: what it keeps in memory is the
// same either way, and the durable master routes at the pace of this
// machine's disk, five times slower here, which would make the run long.
func (cfg MemoryConfig) routeThrough(ctx context.Context, label, bin string) (run MemoryRun, err error) {
	ws, err := newTestbed(cfg.Dir, cfg.Agents)
	if err != nil {
		return run, err
	}
	defer func() { err = errors.Join(err, ws.remove()) }()
	rd, err := startReaders(ws)
	if err != nil {
		return run, err
	}
	defer rd.close()
	p, err := startMaster(bin, ws.root, false, nil)
	if err != nil {
		return run, fmt.Errorf("%s: %w", label, err)
	}
	defer func() {
		if stopErr := p.stop(); stopErr != nil {
			err = errors.Join(err, fmt.Errorf("%s: %w", label, stopErr))
		}
	}()
	fmt.Fprintf(cfg.Progress, "%s: %d messages of %d bytes among %d agents, each read as it arrives\n", label, cfg.Messages, cfg.Body, cfg.Agents)
	body := strings.Repeat("x", cfg.Body)
	start := time.Now()
	for i := range cfg.Messages {
		if err := rd.waitRead(ctx, p, i-memoryWindow+1); err != nil {
			return run, fmt.Errorf("%s: %w", label, err)
		}
		from := ws.agents[i%len(ws.agents)]
		// Every other agent in turn, the sender never.
		to := ws.agents[(i+1+i/len(ws.agents)%(len(ws.agents)-1))%len(ws.agents)]
		msg := &mailbox.Message{From: from, To: []string{to}, Title: fmt.Sprintf("memory message %d", i+1), Content: body}
		msg.Normalize(time.Now())
		if _, err := ws.store.Post(from, msg); err != nil {
			return run, fmt.Errorf("%s: %w", label, err)
		}
		// A sample at each fifth, the last at the end, whatever the count.
		posted := i + 1
		if posted*memorySamples/cfg.Messages == i*memorySamples/cfg.Messages {
			continue
		}
		if err := rd.waitRead(ctx, p, posted); err != nil {
			return run, fmt.Errorf("%s: %w", label, err)
		}
		if err := sleepOrExit(ctx, p, cfg.Settle); err != nil {
			return run, fmt.Errorf("%s: %w", label, err)
		}
		rss, err := residentBytes(p.pid())
		if err != nil {
			return run, fmt.Errorf("%s: %w", label, err)
		}
		run.Samples = append(run.Samples, MemorySample{Routed: posted, RSS: rss})
		fmt.Fprintf(cfg.Progress, "%s: %d routed and read in %s, %.1f MiB resident\n", label, posted, time.Since(start).Round(time.Second), float64(rss)/(1<<20))
	}
	run.Elapsed = time.Since(start)
	return run, nil
}

// sleepOrExit waits for d, unless the master ends or ctx is done first.
func sleepOrExit(ctx context.Context, p *masterProcess, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-p.exited():
		return p.failure()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// readers are the team's agents reading their mail as it arrives: each
// delivered file is moved to read/ as soon as its inbox shows it, as
// `switchboard read` does.
type readers struct {
	ws       *testbed
	fsw      *fsnotify.Watcher
	read     atomic.Int64
	progress chan struct{} // signalled on every message read
	done     chan struct{}
	stopped  chan struct{}
}

func startReaders(ws *testbed) (*readers, error) {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch inboxes: %w", err)
	}
	r := &readers{ws: ws, fsw: fsw, progress: make(chan struct{}, 1), done: make(chan struct{}), stopped: make(chan struct{})}
	for _, agent := range ws.agents {
		if err := fsw.Add(ws.store.InboxDir(agent)); err != nil {
			fsw.Close()
			return nil, fmt.Errorf("watch inbox of %s: %w", agent, err)
		}
	}
	go r.loop()
	return r, nil
}

func (r *readers) loop() {
	defer close(r.stopped)
	// Events lost to an overflow of the kernel's queue leave files unread;
	// a look at every inbox each second reads them.
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-r.done:
			return
		case ev, ok := <-r.fsw.Events:
			if !ok {
				return
			}
			if ev.Has(fsnotify.Create) {
				r.markRead(filepath.Dir(ev.Name), filepath.Base(ev.Name))
			}
		case _, ok := <-r.fsw.Errors:
			if !ok {
				return
			}
			r.readAll()
		case <-tick.C:
			r.readAll()
		}
	}
}

// readAll reads every message in every inbox.
func (r *readers) readAll() {
	for _, agent := range r.ws.agents {
		names, err := r.ws.store.UnreadNames(agent)
		if err != nil {
			continue
		}
		for _, name := range names {
			r.markRead(r.ws.store.InboxDir(agent), name)
		}
	}
}

// markRead moves the delivered file name in the inbox dir to read/, and
// counts it unless someone else moved it first.
func (r *readers) markRead(dir, name string) {
	info, ok := mailbox.ParseFileName(name)
	if !ok {
		return
	}
	path := filepath.Join(dir, name)
	if _, err := os.Lstat(path); err != nil {
		return // read already, by the look at every inbox: counted once
	}
	agent := filepath.Base(filepath.Dir(dir))
	if _, err := r.ws.store.MarkRead(agent, mailbox.Entry{FileInfo: info, Path: path}); err != nil {
		return
	}
	r.read.Add(1)
	select {
	case r.progress <- struct{}{}:
	default:
	}
}

// waitRead waits until at least n messages were read, failing when the
// master ends, ctx is done, or nothing is read for memoryStall.
func (r *readers) waitRead(ctx context.Context, p *masterProcess, n int) error {
	stall := time.NewTimer(memoryStall)
	defer stall.Stop()
	for last := r.read.Load(); last < int64(n); last = r.read.Load() {
		select {
		case <-r.progress:
			if r.read.Load() > last {
				stall.Reset(memoryStall)
			}
		case <-stall.C:
			return fmt.Errorf("%d of %d messages read, and none more within %s", last, n, memoryStall)
		case <-p.exited():
			return p.failure()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (r *readers) close() {
	close(r.done)
	r.fsw.Close()
	<-r.stopped
}
