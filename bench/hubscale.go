package bench

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"switchboard/conversation"
	"switchboard/internal/watch"
	"switchboard/mailbox"
	"switchboard/workspace"
)

// HubScaleConfig says how a team of many hosts is measured through its hub:
// masters only, as processes, each with its agents' profiles (a command
// that never runs: no tmux).
type HubScaleConfig struct {
	Binary string        // the switchboard binary (switchboard-hub beside it)
	Hosts  int           // DefaultScaleHosts when 0
	Agents int           // a host's, DefaultScaleAgents when 0
	Rest   time.Duration // how long the team is watched at rest
	Rate   int           // messages a second across hosts, steady
	Steady time.Duration // how long the steady rate runs
	Burst  int           // messages posted at once across hosts
	Volume int           // messages sent before the hub's disk is measured
	// Cluster runs the hub as three nodes, each keeping the team's mail.
	Cluster  bool
	Dir      string
	Progress io.Writer
}

// Defaults of the scale run: ten hosts of a hundred agents.
const (
	DefaultScaleHosts  = 10
	DefaultScaleAgents = 100
	DefaultScaleRest   = 60 * time.Second
	DefaultScaleRate   = 100
	DefaultScaleSteady = 20 * time.Second
	DefaultScaleBurst  = 1000
	DefaultScaleVolume = 100000
)

// scaleSettle is how long a team that just joined is left before it is
// measured at rest: two heartbeats.
const scaleSettle = 10 * time.Second

// The scale run's targets.
const (
	// The most % of a core the hub (every node) and every master use at
	// rest, together: through one hub, and through a cluster of three.
	TargetScaleRestShare        = 0.5
	TargetScaleRestShareCluster = 1.0
	// The most cross-host p50 at the steady rate, as a multiple of one
	// host's in the same run.
	TargetScaleP50Ratio = 2.0
	// The most % of a core the hub uses meanwhile, its nodes summed.
	TargetScaleLoadHubShare = 10.0
	TargetScalePresence     = 6 * time.Second // the longest an agent's state takes to show on every host
	// The longest from the start of the hub's nodes until every host has
	// joined and sees the whole team, for a cluster of three.
	TargetScaleJoinedCluster = 5 * time.Second
)

// restTarget is the most % of a core the run may use at rest.
func (h *HubScaleResult) restTarget() float64 {
	if h.Cluster {
		return TargetScaleRestShareCluster
	}
	return TargetScaleRestShare
}

// Lost is every message the run lost across hosts.
func (h *HubScaleResult) Lost() int { return h.Steady.Lost + h.Burst.Lost + h.VolumeLost }

// HubScaleResult is a team of many hosts through its hub.
type HubScaleResult struct {
	Hosts   int  `json:"hosts"`
	Agents  int  `json:"agents_per_host"`
	Cluster bool `json:"cluster"`
	// Joined is how long it took from the start of the hub (of its first
	// node) until every master, started with it, had joined and saw the
	// whole team: the hosts' workspaces are made before.
	Joined time.Duration `json:"joined_ns"`
	// At rest: the share of a core the hub (every node) and the masters
	// used, and their resident memory.
	Rest    Usage         `json:"rest"`
	RestFor time.Duration `json:"rest_window_ns"`
	// RestLocal is the same agents at rest on one host: one master, no
	// hub, over the same span.
	RestLocal Usage         `json:"rest_local"`
	Presence  time.Duration `json:"presence_ns"` // an agent's state on every host
	// At the steady rate: delivery to an agent of another host, and the
	// same load within one host; the usage meanwhile.
	Rate        int        `json:"rate"` // of the steady run, messages a second
	Steady      Latency    `json:"steady"`
	SteadyLocal Latency    `json:"steady_local"`
	Load        Usage      `json:"load"`
	Burst       Throughput `json:"burst"`
	// Disk is the hub's folder after Volume messages crossed it.
	Volume     int   `json:"volume"`
	VolumeLost int   `json:"volume_lost"`
	Disk       int64 `json:"disk_bytes"`
}

// Usage is what a team's processes used over a span: the share of a core
// (100 is one core), and the largest resident memory of one of them.
type Usage struct {
	Hub     float64 `json:"hub_share"`
	Masters float64 `json:"masters_share"`
	HubRSS  int64   `json:"hub_rss_bytes"`
	RSS     int64   `json:"master_rss_bytes"` // the largest master's
}

// Total is the hub's share and the masters' together.
func (u Usage) Total() float64 { return u.Hub + u.Masters }

// AddHubScale adds the scale run's figures to the result, and checks them.
func (r *Result) AddHubScale(h *HubScaleResult) {
	r.HubScale = append(r.HubScale, h)
	r.check()
}

// scaleTeam is the hosts of a scale run: their workspaces and masters.
type scaleTeam struct {
	roots   []string
	masters []*masterProcess
	hubs    []*hubProcess
}

// agentOf names agent j of host i.
func agentOf(i, j int) string { return fmt.Sprintf("h%02d-a%03d", i, j) }

func hostOf(i int) string { return fmt.Sprintf("h%02d", i) }

// RunHubScale starts a hub (three nodes with Cluster) and Hosts masters,
// each running Agents agents, and measures them at rest, a state change
// crossing to every host, a steady rate across hosts beside the same within
// one host, a burst, and the hub's disk after Volume messages.
func RunHubScale(ctx context.Context, cfg HubScaleConfig) (*HubScaleResult, error) {
	cfg = cfg.withDefaults()
	dir, err := os.MkdirTemp(cfg.Dir, "switchboard-bench-scale-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	team := &scaleTeam{}
	defer team.stop()
	res := &HubScaleResult{Hosts: cfg.Hosts, Agents: cfg.Agents, Cluster: cfg.Cluster}
	fmt.Fprintf(cfg.Progress, "hub-scale: the %d agents on one host, %s at rest\n", cfg.Hosts*cfg.Agents, cfg.Rest)
	if res.RestLocal, err = restOnOneHost(ctx, cfg, dir); err != nil {
		return nil, err
	}
	if err := team.makeWorkspaces(cfg, dir); err != nil {
		return nil, err
	}
	start := time.Now()
	steps, err := team.start(ctx, cfg, dir)
	if err != nil {
		return nil, err
	}
	res.Joined = time.Since(start)
	fmt.Fprintf(cfg.Progress, "hub-scale: %d hosts of %d agents joined in %s (%s)\n", cfg.Hosts, cfg.Agents, res.Joined.Round(time.Millisecond), steps)

	// A team just joined settles first: each master writes the team, and
	// judges the others' helpers, once.
	if err := watch.Sleep(ctx, scaleSettle); err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Progress, "hub-scale: %s at rest\n", cfg.Rest)
	res.RestFor, res.Rate = cfg.Rest, cfg.Rate
	if res.Rest, err = team.usage(func() error { return watch.Sleep(ctx, cfg.Rest) }); err != nil {
		return nil, err
	}
	if res.Presence, err = team.presence(ctx); err != nil {
		return nil, err
	}
	seen, err := watchArrivals(team.receivers()...)
	if err != nil {
		return nil, err
	}
	defer seen.close()
	fmt.Fprintf(cfg.Progress, "hub-scale: %d msg/s for %s within one host, then across hosts\n", cfg.Rate, cfg.Steady)
	if res.SteadyLocal, err = team.steady(ctx, cfg, seen, false); err != nil {
		return nil, err
	}
	res.Load, err = team.usage(func() error {
		res.Steady, err = team.steady(ctx, cfg, seen, true)
		return err
	})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Progress, "hub-scale: a burst of %d across hosts\n", cfg.Burst)
	if res.Burst, err = team.burst(ctx, cfg.Burst, seen); err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Progress, "hub-scale: %d messages across hosts for the hub's disk\n", cfg.Volume)
	res.Volume = cfg.Volume
	for sent := 0; sent < cfg.Volume; sent += cfg.Burst {
		b, err := team.burst(ctx, min(cfg.Burst, cfg.Volume-sent), seen)
		if err != nil {
			return nil, err
		}
		res.VolumeLost += b.Lost
	}
	for _, h := range team.hubs {
		res.Disk += sizeOf(h.dir)
	}
	return res, nil
}

// check checks the numbers a person gives, as given: a zero is no default.
func (cfg HubScaleConfig) check() error {
	switch {
	case cfg.Hosts < 2:
		return want("scale hosts", "must be at least 2")
	case cfg.Agents < 3:
		return want("scale agents", "must be at least 3 (a sender, a receiver, another)")
	case cfg.Rest <= 0:
		return want("scale rest", "must be positive, like 60s")
	case cfg.Steady <= 0:
		return want("scale steady", "must be positive, like 20s")
	case cfg.Burst < 1:
		return want("scale burst", "must be positive, like 1000")
	case cfg.Volume < 1:
		return want("scale volume", "must be positive, like 100000")
	}
	return nil
}

func (cfg HubScaleConfig) withDefaults() HubScaleConfig {
	if cfg.Hosts <= 0 {
		cfg.Hosts = DefaultScaleHosts
	}
	if cfg.Agents <= 0 {
		cfg.Agents = DefaultScaleAgents
	}
	cfg.Agents = max(cfg.Agents, 3) // a receiver, the one host's, a sender
	if cfg.Rest <= 0 {
		cfg.Rest = DefaultScaleRest
	}
	if cfg.Rate <= 0 {
		cfg.Rate = DefaultScaleRate
	}
	if cfg.Steady <= 0 {
		cfg.Steady = DefaultScaleSteady
	}
	if cfg.Burst <= 0 {
		cfg.Burst = DefaultScaleBurst
	}
	if cfg.Volume <= 0 {
		cfg.Volume = DefaultScaleVolume
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	return cfg
}

// scaleRules lets every agent of the scale run reach every other.
func scaleRules(cfg HubScaleConfig) string {
	var rules strings.Builder
	rules.WriteString("allowed_interactions:\n")
	for i := range cfg.Hosts {
		for j := range cfg.Agents {
			fmt.Fprintf(&rules, "  %s: {can_send_to: [\"*\"], can_receive_from: [\"*\"]}\n", agentOf(i, j))
		}
	}
	return rules.String()
}

// makeScaleWorkspace makes a workspace at root with the scale run's rules
// and the profiles of the agents of hosts.
func makeScaleWorkspace(cfg HubScaleConfig, root string, hosts ...int) error {
	ws := workspace.New(root)
	if err := os.MkdirAll(ws.Profiles(), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(ws.RulesPath(), []byte(scaleRules(cfg)), 0o644); err != nil {
		return err
	}
	for _, i := range hosts {
		for j := range cfg.Agents {
			// An agent of a master without tmux: its command never runs.
			if err := os.WriteFile(ws.ProfilePath(agentOf(i, j)), []byte("kind: generic\ncommand: [\"true\"]\n"), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// restOnOneHost runs every agent of the scale run on one host, one master
// and no hub, and measures it at rest, as the team across hosts is.
func restOnOneHost(ctx context.Context, cfg HubScaleConfig, dir string) (Usage, error) {
	root := filepath.Join(dir, "one-host")
	every := make([]int, cfg.Hosts)
	for i := range every {
		every[i] = i
	}
	if err := makeScaleWorkspace(cfg, root, every...); err != nil {
		return Usage{}, err
	}
	m, err := startMaster(cfg.Binary, root, false, nil)
	if err != nil {
		return Usage{}, err
	}
	one := &scaleTeam{masters: []*masterProcess{m}}
	defer one.stop()
	if !watch.Until(ctx, 100*time.Millisecond, 2*time.Minute, func() bool { return strings.Contains(m.logTail(), "master running for") }) {
		return Usage{}, fmt.Errorf("the master of the %d agents on one host did not start within 2 minutes:\n%s", cfg.Hosts*cfg.Agents, m.logTail())
	}
	if err := watch.Sleep(ctx, scaleSettle); err != nil {
		return Usage{}, err
	}
	return one.usage(func() error { return watch.Sleep(ctx, cfg.Rest) })
}

// makeWorkspaces makes the hosts' workspaces.
func (t *scaleTeam) makeWorkspaces(cfg HubScaleConfig, dir string) error {
	for i := range cfg.Hosts {
		root := filepath.Join(dir, hostOf(i))
		if err := makeScaleWorkspace(cfg, root, i); err != nil {
			return err
		}
		t.roots = append(t.roots, root)
	}
	return nil
}

// start starts the hub and a master on each host's workspace, and waits
// until every master joined and sees the whole team; it says how long
// each step took from the start.
func (t *scaleTeam) start(ctx context.Context, cfg HubScaleConfig, dir string) (steps string, err error) {
	began := time.Now()
	since := func() string { return time.Since(began).Round(10 * time.Millisecond).String() }
	hosts := make([]string, cfg.Hosts)
	for i := range hosts {
		hosts[i] = hostOf(i)
	}
	if err := t.startHubs(cfg, dir, hosts); err != nil {
		return "", err
	}
	steps = "the hub up at " + since()
	config := "XDG_CONFIG_HOME=" + filepath.Join(dir, "config")
	for i, root := range t.roots {
		p, err := startMaster(cfg.Binary, root, false, []string{config}, "--hub", t.hubs[0].urls[hosts[i]], "--host", hosts[i])
		if err != nil {
			return steps, err
		}
		t.masters = append(t.masters, p)
	}
	steps += ", the masters started at " + since()
	whole := cfg.Hosts * cfg.Agents
	for i, root := range t.roots {
		ws := workspace.New(root)
		seen := watch.Until(ctx, 100*time.Millisecond, 5*time.Minute, func() bool {
			team, ok, _ := ws.ReadHubTeam()
			return ok && len(team.Members) == whole
		})
		if !seen {
			return steps, fmt.Errorf("the master of host %s does not see the %d agents of the team within 5 minutes (%s):\n%s", hosts[i], whole, steps, t.masters[i].logTail())
		}
		if i == 0 {
			steps += ", host " + hosts[0] + " seeing the team at " + since()
		}
	}
	return steps, nil
}

// startHubs runs the hub: one node, or three with the same secret.
func (t *scaleTeam) startHubs(cfg HubScaleConfig, dir string, hosts []string) error {
	if !cfg.Cluster {
		h, err := startHub(cfg.Binary, filepath.Join(dir, "hub"), hosts...)
		if err != nil {
			return err
		}
		t.hubs = append(t.hubs, h)
		return nil
	}
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return err
	}
	clients, clusters, err := LoopbackNodes(3)
	if err != nil {
		return err
	}
	type node struct{ addr, cluster, dir string }
	nodes := make([]node, 3)
	for i := range nodes {
		nodes[i] = node{addr: clients[i], cluster: clusters[i], dir: filepath.Join(dir, fmt.Sprintf("hub-n%d", i+1))}
		if err := os.MkdirAll(nodes[i].dir, 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(nodes[i].dir, "hub.secret"), secret, 0o600); err != nil {
			return err
		}
	}
	for i, n := range nodes {
		args := []string{"--listen", n.addr, "--dir", n.dir, "--cluster", n.cluster, "--name", fmt.Sprintf("n%d", i+1)}
		for j, peer := range nodes {
			if j != i {
				args = append(args, "--peer", "nats://"+peer.cluster)
			}
		}
		h, err := startHubNode(cfg.Binary, args, hosts...)
		if err != nil {
			return err
		}
		t.hubs = append(t.hubs, h)
	}
	return nil
}

func (t *scaleTeam) stop() {
	for _, m := range t.masters {
		_ = m.stop()
	}
	for _, h := range t.hubs {
		h.stop()
	}
}

// usage runs span and returns what the hub and the masters used during it.
func (t *scaleTeam) usage(span func() error) (Usage, error) {
	var pids []int
	for _, h := range t.hubs {
		pids = append(pids, h.cmd.Process.Pid)
	}
	for _, m := range t.masters {
		pids = append(pids, m.pid())
	}
	before := make([]time.Duration, len(pids))
	for i, pid := range pids {
		cpu, err := preciseCPUTime(pid)
		if err != nil {
			return Usage{}, err
		}
		before[i] = cpu
	}
	began := time.Now()
	if err := span(); err != nil {
		return Usage{}, err
	}
	elapsed := time.Since(began)
	var u Usage
	for i, pid := range pids {
		cpu, err := preciseCPUTime(pid)
		if err != nil {
			return Usage{}, err
		}
		share := 100 * float64(cpu-before[i]) / float64(elapsed)
		rss, _ := residentBytes(pid) // a process gone is counted at nothing
		if i < len(t.hubs) {
			u.Hub += share
			u.HubRSS = max(u.HubRSS, rss)
		} else {
			u.Masters += share
			u.RSS = max(u.RSS, rss)
		}
	}
	return u, nil
}

// presence changes the state of an agent of the first host and returns how
// long it took to show on every other host.
func (t *scaleTeam) presence(ctx context.Context) (time.Duration, error) {
	agent := agentOf(0, 0)
	store := mailbox.NewStore(t.roots[0])
	began := time.Now()
	if err := conversation.Of(store).SetState(agent, conversation.State{State: conversation.Busy, Since: began.UTC(), Source: conversation.SourceHook}); err != nil {
		return 0, err
	}
	for i, root := range t.roots[1:] {
		ws := workspace.New(root)
		shown := watch.Until(ctx, 20*time.Millisecond, time.Minute, func() bool {
			team, ok, _ := ws.ReadHubTeam()
			for _, m := range team.Members {
				if ok && m.Agent == agent && m.State == conversation.Busy {
					return true
				}
			}
			return false
		})
		if !shown {
			return 0, fmt.Errorf("the state of %s did not show on host %s within a minute", agent, hostOf(i+1))
		}
	}
	return time.Since(began), nil
}

// receivers are the inboxes the runs deliver to: the first agent of each
// host, and the second of the first host (the one-host run's).
func (t *scaleTeam) receivers() []string {
	var dirs []string
	for i, root := range t.roots {
		dirs = append(dirs, mailbox.NewStore(root).InboxDir(agentOf(i, 0)))
	}
	return append(dirs, mailbox.NewStore(t.roots[0]).InboxDir(agentOf(0, 1)))
}

// post drops a message from the third agent of host from to the receiver
// of the next host (across), or from the first host's third agent to its
// second (within one host), and returns its id and when it was posted.
func (t *scaleTeam) post(from int, across bool) (string, time.Time, error) {
	to := agentOf((from+1)%len(t.roots), 0)
	sender := agentOf(from, 2)
	if !across {
		from, to, sender = 0, agentOf(0, 1), agentOf(0, 2)
	}
	m := &mailbox.Message{From: sender, To: []string{to}, Title: "scale", Type: mailbox.TypeNotification, Priority: mailbox.PriorityLow}
	m.Normalize(time.Now())
	at := time.Now()
	_, err := mailbox.NewStore(t.roots[from]).Post(sender, m)
	return m.ID, at, err
}

// steady posts cfg.Rate messages a second for cfg.Steady, across hosts or
// within one, and returns their latency.
func (t *scaleTeam) steady(ctx context.Context, cfg HubScaleConfig, seen *arrivalTimes, across bool) (Latency, error) {
	total := int(float64(cfg.Rate) * cfg.Steady.Seconds())
	type posted struct {
		id string
		at time.Time
	}
	sent := make([]posted, 0, total)
	tick := time.NewTicker(time.Second / time.Duration(cfg.Rate))
	defer tick.Stop()
	for n := range total {
		select {
		case <-ctx.Done():
			return Latency{}, ctx.Err()
		case <-tick.C:
		}
		id, at, err := t.post(n%len(t.roots), across)
		if err != nil {
			return Latency{}, err
		}
		sent = append(sent, posted{id, at})
	}
	var out outcome
	for _, p := range sent {
		if arrived, ok := seen.wait(ctx, p.id, readyTimeout); ok {
			out.latencies = append(out.latencies, arrived.Sub(p.at))
		} else {
			out.lost++
		}
	}
	return latencyOf(total, out), nil
}

// burst posts n messages across hosts at once and returns how long they
// took to arrive.
func (t *scaleTeam) burst(ctx context.Context, n int, seen *arrivalTimes) (Throughput, error) {
	start := time.Now()
	ids := make([]string, 0, n)
	for i := range n {
		id, _, err := t.post(i%len(t.roots), true)
		if err != nil {
			return Throughput{}, err
		}
		ids = append(ids, id)
	}
	posting := time.Since(start)
	var last time.Time
	lost := 0
	for _, id := range ids {
		at, ok := seen.wait(ctx, id, time.Minute)
		if !ok {
			lost++
			continue
		}
		last = maxTime(last, at)
	}
	elapsed := last.Sub(start)
	return Throughput{Count: n, Lost: lost, Elapsed: elapsed, Posting: posting, PerSecond: float64(n-lost) / elapsed.Seconds()}, nil
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// sizeOf is the bytes the files under dir take on disk.
func sizeOf(dir string) int64 {
	var total int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				total += fi.Size()
			}
		}
		return nil
	})
	return total
}
