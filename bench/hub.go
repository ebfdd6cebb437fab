package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"switchboard/internal/watch"
	"switchboard/mailbox"
	"switchboard/workspace"
)

// HubConfig says how delivery across hosts is measured.
type HubConfig struct {
	Binary   string    // the switchboard binary
	Samples  int       // messages timed one at a time, each way (DefaultHubSamples when 0)
	Burst    int       // messages posted at once, each way (DefaultHubBurst when 0)
	Dir      string    // where the workspaces and the hub's files are made
	Progress io.Writer // where progress goes; nil for nowhere
}

// Defaults of the hub run.
const (
	DefaultHubSamples = 200
	DefaultHubBurst   = 1000
)

// The hub's targets: delivery to an agent of another host beside delivery
// to one of the sender's host, in the same run.
const (
	TargetHubBurstRatio = 0.5 // the least cross-host burst, as a share of the local one
	TargetHubP50Ratio   = 3.0 // the most cross-host p50, as a multiple of the local one
)

// HubResult is delivery to an agent of the sender's host and to one of
// another host, the two masters joined through an embedded hub.
type HubResult struct {
	Local  HubDelivery `json:"local"`
	Remote HubDelivery `json:"remote"`
}

// HubDelivery is one way's latency and burst.
type HubDelivery struct {
	Latency Latency    `json:"latency"`
	Burst   Throughput `json:"burst"`
}

// AddHub adds the hub's figures to the result, and checks them.
func (r *Result) AddHub(h *HubResult) {
	r.Hub = h
	r.check()
}

// RunHub starts a hub (switchboard hub) and two masters, each on a workspace of its
// own: host a runs the sender and a local recipient, host b the remote one.
// It times messages one at a time, then bursts, to each recipient in turn.
func RunHub(ctx context.Context, cfg HubConfig) (*HubResult, error) {
	if cfg.Samples <= 0 {
		cfg.Samples = DefaultHubSamples
	}
	if cfg.Burst <= 0 {
		cfg.Burst = DefaultHubBurst
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	dir, err := os.MkdirTemp(cfg.Dir, "switchboard-bench-hub-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	srv, err := startHub(cfg.Binary, filepath.Join(dir, "hub"), "a", "b")
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	rules := "allowed_interactions:\n" +
		"  sender: {can_send_to: [\"*\"], can_receive_from: [\"*\"]}\n" +
		"  near: {can_send_to: [\"*\"], can_receive_from: [\"*\"]}\n" +
		"  far: {can_send_to: [\"*\"], can_receive_from: [\"*\"]}\n"
	hosts := map[string][]string{"a": {"sender", "near"}, "b": {"far"}}
	roots := make(map[string]string)
	for host, agents := range hosts {
		root := filepath.Join(dir, host)
		ws := workspace.New(root)
		if err := os.MkdirAll(ws.Profiles(), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(ws.RulesPath(), []byte(rules), 0o644); err != nil {
			return nil, err
		}
		for _, a := range agents {
			if err := os.WriteFile(ws.ProfilePath(a), []byte("kind: shell\n"), 0o644); err != nil {
				return nil, err
			}
			if err := ws.Store.Ensure(a); err != nil {
				return nil, err
			}
		}
		roots[host] = root
	}
	for host, root := range roots {
		// A master joining a hub keeps its settings in the user's config
		// folder: these, of workspaces gone when the bench ends, in the
		// bench's own.
		config := "XDG_CONFIG_HOME=" + filepath.Join(dir, "config")
		p, err := startMaster(cfg.Binary, root, true, []string{config}, "--hub", srv.urls[host], "--host", host)
		if err != nil {
			return nil, err
		}
		defer p.stop()
		joined := watch.Until(ctx, 10*time.Millisecond, readyTimeout, func() bool {
			return strings.Contains(p.logTail(), "joined the hub")
		})
		if !joined {
			return nil, fmt.Errorf("the master of host %s did not join the hub:\n%s", host, p.logTail())
		}
	}
	seen, err := watchArrivals(
		mailbox.NewStore(roots["a"]).InboxDir("near"),
		mailbox.NewStore(roots["b"]).InboxDir("far"))
	if err != nil {
		return nil, err
	}
	defer seen.close()
	sender := mailbox.NewStore(roots["a"])
	post := func(to string) (string, time.Time, error) {
		m := &mailbox.Message{From: "sender", To: []string{to}, Title: "bench", Type: mailbox.TypeNotification, Priority: mailbox.PriorityLow}
		m.Normalize(time.Now())
		at := time.Now()
		_, err := sender.Post("sender", m)
		return m.ID, at, err
	}
	res := &HubResult{}
	for _, way := range []struct {
		to  string
		out *HubDelivery
	}{{"near", &res.Local}, {"far", &res.Remote}} {
		fmt.Fprintf(cfg.Progress, "hub: %d messages one at a time to %s\n", cfg.Samples, way.to)
		var out outcome
		for range cfg.Samples {
			id, at, err := post(way.to)
			if err != nil {
				return nil, err
			}
			if t, ok := seen.wait(ctx, id, readyTimeout); ok {
				out.latencies = append(out.latencies, t.Sub(at))
			} else {
				out.lost++
			}
		}
		way.out.Latency = latencyOf(cfg.Samples, out)
	}
	for _, way := range []struct {
		to  string
		out *HubDelivery
	}{{"near", &res.Local}, {"far", &res.Remote}} {
		fmt.Fprintf(cfg.Progress, "hub: a burst of %d to %s\n", cfg.Burst, way.to)
		start := time.Now()
		ids := make([]string, 0, cfg.Burst)
		for range cfg.Burst {
			id, _, err := post(way.to)
			if err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
		posting := time.Since(start)
		var last time.Time
		lost := 0
		for _, id := range ids {
			t, ok := seen.wait(ctx, id, readyTimeout)
			if !ok {
				lost++
				continue
			}
			if t.After(last) {
				last = t
			}
		}
		elapsed := last.Sub(start)
		way.out.Burst = Throughput{Count: cfg.Burst, Lost: lost, Elapsed: elapsed, Posting: posting,
			PerSecond: float64(cfg.Burst-lost) / elapsed.Seconds()}
	}
	return res, nil
}

// arrivalTimes notes when each message appears in the inboxes watched, by
// the id in its file name.
type arrivalTimes struct {
	fsw  *fsnotify.Watcher
	mu   sync.Mutex
	at   map[string]time.Time
	more chan struct{}
	done chan struct{}
}

func watchArrivals(dirs ...string) (*arrivalTimes, error) {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	for _, d := range dirs {
		if err := fsw.Add(d); err != nil {
			fsw.Close()
			return nil, err
		}
	}
	a := &arrivalTimes{fsw: fsw, at: make(map[string]time.Time), more: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer close(a.done)
		for ev := range fsw.Events {
			info, ok := mailbox.ParseFileName(filepath.Base(ev.Name))
			if !ok || !ev.Has(fsnotify.Create) && !ev.Has(fsnotify.Rename) {
				continue
			}
			a.mu.Lock()
			if _, seen := a.at[info.ID]; !seen {
				a.at[info.ID] = time.Now()
			}
			a.mu.Unlock()
			select {
			case a.more <- struct{}{}:
			default:
			}
		}
	}()
	return a, nil
}

// wait waits up to timeout for the message and returns when it arrived.
func (a *arrivalTimes) wait(ctx context.Context, id string, timeout time.Duration) (time.Time, bool) {
	deadline := time.After(timeout)
	for {
		a.mu.Lock()
		t, ok := a.at[id]
		a.mu.Unlock()
		if ok {
			return t, true
		}
		select {
		case <-a.more:
		case <-deadline:
			return time.Time{}, false
		case <-ctx.Done():
			return time.Time{}, false
		}
	}
}

func (a *arrivalTimes) close() {
	a.fsw.Close()
	<-a.done
}
