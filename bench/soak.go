package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"switchboard/internal/tmux"
	"switchboard/internal/watch"
	"switchboard/mailbox"
	"switchboard/profile"
	"switchboard/workspace"
)

// SoakConfig says how long and how hard a team is worked in the soak.
type SoakConfig struct {
	Binary   string        // the switchboard binary
	Duration time.Duration // how long the load runs (DefaultSoakDuration when 0)
	Agents   int           // agents without hooks (DefaultSoakAgents when 0)
	Rate     int           // messages a second (DefaultSoakRate when 0)
	Kills    int           // SIGKILLs of the master, spread over the run (none when negative; DefaultSoakKills when 0)
	Sample   time.Duration // how often the master is measured (DefaultSoakSample when 0)
	Dir      string        // where the workspace is made (the system's temporary folder when "")
	Progress io.Writer     // where each sample and the progress go; nil for nowhere
}

// Defaults of the soak.
const (
	DefaultSoakDuration = 15 * time.Minute
	DefaultSoakAgents   = 20
	DefaultSoakRate     = 15
	DefaultSoakKills    = 1
	DefaultSoakSample   = 30 * time.Second
)

// The soak's load: every forbiddenEvery-th message is one the rules
// forbid, every broadcastEvery-th goes to everyone; bodies are
// soakMinBody–soakMaxBody bytes; a helper is spawned, and the last one
// closed or cancelled, every helperEvery; the rules are written again in
// place every rulesEvery.
const (
	forbiddenEvery = 20
	broadcastEvery = 10
	soakMinBody    = 10 << 10
	soakMaxBody    = 100 << 10
	helperEvery    = 30 * time.Second
	rulesEvery     = time.Minute
)

// The pair of the soak's rules that may never talk.
const (
	soakForbiddenFrom = "a001"
	soakForbiddenTo   = "a002"
)

// SoakSample is the master over one sample's time: its memory and open
// files at the end, its CPU with the processes it starts, and the time from
// posting to routing of the messages logged meanwhile.
type SoakSample struct {
	At     time.Duration `json:"at_ns"`
	Logged int           `json:"logged"` // records logged by then
	RSS    int64         `json:"rss_bytes"`
	FDs    int           `json:"fds"`
	CPU    float64       `json:"cpu_percent"` // negative when the master was started again in the sample
	P50    time.Duration `json:"p50_ns"`
	P99    time.Duration `json:"p99_ns"`
	Max    time.Duration `json:"max_ns"`
	Killed bool          `json:"killed,omitempty"` // the master was killed in this sample
}

// SoakResult is what the soak did and the checks of its promises: each
// message logged once and each copy delivered once, none the rules forbid
// delivered, nothing left in an outbox.
type SoakResult struct {
	Duration   time.Duration `json:"duration_ns"`
	Agents     int           `json:"agents"`
	Rate       int           `json:"rate"`
	Achieved   float64       `json:"achieved_rate"` // messages a second actually posted
	Posted     int           `json:"posted"`
	Broadcasts int           `json:"broadcasts"`
	Forbidden  int           `json:"forbidden"`
	Helpers    int           `json:"helpers"`
	Rewrites   int           `json:"rules_rewrites"`
	Kills      int           `json:"kills"`
	// The checks, after the load, once the master has routed everything.
	Logged             int `json:"logged"`
	Copies             int `json:"copies"`
	NotLogged          int `json:"not_logged"`
	LoggedTwice        int `json:"logged_twice"`
	CopiesMissing      int `json:"copies_missing"`
	CopiesTwice        int `json:"copies_twice"`
	ForbiddenDelivered int `json:"forbidden_delivered"`
	LeftInOutbox       int `json:"left_in_outbox"`
	// LongestGap is the longest time between two records logged while mail
	// was posted: how long routing stopped, a restart included.
	LongestGap time.Duration `json:"longest_gap_ns"`
	Samples    []SoakSample  `json:"samples"`
}

// Kept reports whether every promise held.
func (r *SoakResult) Kept() bool {
	return r.NotLogged == 0 && r.LoggedTwice == 0 && r.CopiesMissing == 0 && r.CopiesTwice == 0 &&
		r.ForbiddenDelivered == 0 && r.LeftInOutbox == 0
}

// RunSoak brings up a team of agents without hooks in a real tmux server
// and works it for cfg.Duration: messages of 10–100 KB at cfg.Rate a
// second, broadcasts, forbidden attempts, helpers spawned, closed and
// cancelled, the rules written again in place, and the master killed with
// SIGKILL and started again. It samples the master as it goes, and checks
// at the end that every message was logged once, every copy delivered
// once, none forbidden delivered, and nothing left in an outbox.
func RunSoak(ctx context.Context, cfg SoakConfig) (*SoakResult, error) {
	cfg = cfg.withDefaults()
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if !tmux.Installed() {
		return nil, fmt.Errorf("%w: tmux is not installed", ErrNoTmux)
	}
	dir, err := os.MkdirTemp(cfg.Dir, "switchboard-soak-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	s := &soak{cfg: cfg, team: &teamRun{cfg: TeamConfig{Binary: cfg.Binary, Agents: cfg.Agents}, root: dir, socket: fmt.Sprintf("sbsoak-%d", os.Getpid())},
		rng: rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())), res: &SoakResult{Duration: cfg.Duration, Agents: cfg.Agents, Rate: cfg.Rate}}
	if err := s.writeTeam(); err != nil {
		return nil, err
	}
	defer s.team.down()
	if out, err := s.team.switchboard(ctx, "up", "-d", "--no-console", "--socket", s.team.socket); err != nil {
		return nil, fmt.Errorf("up: %w\n%s", err, out)
	}
	if err := s.team.waitAtRest(ctx); err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Progress, "soak: %d agents, %d msg/s for %s, %d SIGKILLs of the master\n", cfg.Agents, cfg.Rate, cfg.Duration, cfg.Kills)
	if err := s.load(ctx); err != nil {
		return nil, err
	}
	fmt.Fprintln(cfg.Progress, "soak: load ended; waiting for the master to route what is left")
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	return s.res, nil
}

func (cfg SoakConfig) withDefaults() SoakConfig {
	if cfg.Duration <= 0 {
		cfg.Duration = DefaultSoakDuration
	}
	if cfg.Agents <= 0 {
		cfg.Agents = DefaultSoakAgents
	}
	if cfg.Rate <= 0 {
		cfg.Rate = DefaultSoakRate
	}
	switch {
	case cfg.Kills == 0:
		cfg.Kills = DefaultSoakKills
	case cfg.Kills < 0:
		cfg.Kills = 0
	}
	if cfg.Sample <= 0 {
		cfg.Sample = DefaultSoakSample
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	return cfg
}

// check checks the numbers a person gives, as given: a zero is no default.
// The kills are not checked: none is as good as a negative number.
func (cfg SoakConfig) check() error {
	switch {
	case cfg.Agents < 3:
		return want("soak agents", "must be at least 3: the soak forbids one pair and lets the others talk")
	case cfg.Rate < 1:
		return want("soak rate", "must be positive, like 15")
	case cfg.Duration <= 0:
		return want("soak duration", "must be positive, like 15m")
	case cfg.Sample <= 0:
		return want("soak sample", "must be positive, like 30s")
	}
	return nil
}

type soak struct {
	cfg  SoakConfig
	team *teamRun
	rng  *rand.Rand
	res  *SoakResult

	posted  []string // ids, in posting order
	helpers []string // spawned and not yet closed or cancelled

	// The sampler's place in the log, and the records it read.
	logAt      int64
	lastLogged time.Time
	logged     int
}

// writeTeam makes the workspace: the agents typists (as in the typing
// run), a helper profile, and rules letting everyone talk but one pair.
func (s *soak) writeTeam() error {
	if err := os.MkdirAll(s.team.typingDir(), 0o755); err != nil {
		return err
	}
	ws := workspace.New(s.team.root)
	if err := os.MkdirAll(ws.Profiles(), 0o755); err != nil {
		return err
	}
	typist := func(name string) string {
		return fmt.Sprintf("kind: %s\ncommand: [sh, -c, %s]\n", profile.KindGeneric, strconv.Quote("exec cat >> "+filepath.Join(s.team.typingDir(), name)))
	}
	for i := 1; i <= s.cfg.Agents; i++ {
		if err := os.WriteFile(ws.ProfilePath(s.team.name(i)), []byte(typist(s.team.name(i))), 0o644); err != nil {
			return err
		}
	}
	if err := os.WriteFile(ws.ProfilePath("helper"), []byte(typist("helpers")), 0o644); err != nil {
		return err
	}
	return s.writeRules(0)
}

// writeRules writes the rules in place, as an editor that truncates does;
// each version differs in its comment alone.
func (s *soak) writeRules(version int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# version %d\nallowed_interactions:\n", version)
	for i := 1; i <= s.cfg.Agents; i++ {
		fmt.Fprintf(&b, "  %s: {can_send_to: [\"*\"], can_receive_from: [\"*\"]}\n", s.team.name(i))
	}
	fmt.Fprintf(&b, "  helper: {can_send_to: [\"*\"], can_receive_from: [\"*\"]}\n")
	fmt.Fprintf(&b, "forbidden_interactions:\n  - {from: %s, to: %s, reason: \"the soak's forbidden pair\"}\n", soakForbiddenFrom, soakForbiddenTo)
	f, err := os.OpenFile(workspace.New(s.team.root).RulesPath(), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(b.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// load posts the mail, works the helpers and the rules, kills the master,
// and samples, until the run's time is up.
func (s *soak) load(ctx context.Context) error {
	start := time.Now()
	end := start.Add(s.cfg.Duration)
	post := time.NewTicker(time.Second / time.Duration(s.cfg.Rate))
	defer post.Stop()
	nextHelper, nextRules, nextSample := start.Add(helperEvery), start.Add(rulesEvery), start.Add(s.cfg.Sample)
	var kills []time.Time
	for k := 1; k <= s.cfg.Kills; k++ {
		kills = append(kills, start.Add(s.cfg.Duration*time.Duration(k)/time.Duration(s.cfg.Kills+1)))
	}
	sample := s.startSample(start)
	store := mailbox.NewStore(s.team.root)
	for now := time.Now(); now.Before(end); now = time.Now() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-post.C:
		}
		if err := s.post(store); err != nil {
			return err
		}
		switch {
		case len(kills) > 0 && !now.Before(kills[0]):
			kills = kills[1:]
			if err := s.killMaster(ctx); err != nil {
				return err
			}
			sample.killed = true
		case !now.Before(nextHelper):
			nextHelper = nextHelper.Add(helperEvery)
			if err := s.workHelpers(ctx); err != nil {
				return err
			}
		case !now.Before(nextRules):
			nextRules = nextRules.Add(rulesEvery)
			s.res.Rewrites++
			if err := s.writeRules(s.res.Rewrites); err != nil {
				return err
			}
		case !now.Before(nextSample):
			nextSample = nextSample.Add(s.cfg.Sample)
			s.endSample(sample, start)
			sample = s.startSample(start)
		}
	}
	s.endSample(sample, start)
	s.res.Achieved = float64(s.res.Posted) / time.Since(start).Seconds()
	return nil
}

// post sends one message: to one other agent, to everyone, or along the
// forbidden pair.
func (s *soak) post(store *mailbox.Store) error {
	n := len(s.posted) + 1
	sender := s.rng.IntN(s.cfg.Agents) + 1
	other := s.rng.IntN(s.cfg.Agents-1) + 1 // anyone but the sender
	if other >= sender {
		other++
	}
	from, to := s.team.name(sender), []string{s.team.name(other)}
	switch {
	case n%forbiddenEvery == 0:
		from, to = soakForbiddenFrom, []string{soakForbiddenTo}
		s.res.Forbidden++
	case n%broadcastEvery == 0:
		to = []string{"*"}
		s.res.Broadcasts++
	}
	body := strings.Repeat("soak payload ", (soakMinBody+s.rng.IntN(soakMaxBody-soakMinBody))/13)
	msg := &mailbox.Message{From: from, To: to, Title: fmt.Sprintf("soak %d", n), Content: body}
	msg.Normalize(time.Now())
	if _, err := store.Post(from, msg); err != nil {
		return fmt.Errorf("post: %w", err)
	}
	s.posted = append(s.posted, msg.ID)
	s.res.Posted++
	return nil
}

// workHelpers spawns a helper under a random agent, and closes or cancels
// the oldest one still there, in turn.
func (s *soak) workHelpers(ctx context.Context) error {
	if len(s.helpers) > 0 {
		old := s.helpers[0]
		s.helpers = s.helpers[1:]
		verb := "close"
		if s.res.Helpers%2 == 0 {
			verb = "cancel"
		}
		if out, err := s.team.switchboard(ctx, verb, old); err != nil {
			return fmt.Errorf("%s %s: %w\n%s", verb, old, err, out)
		}
		if verb == "cancel" {
			s.helpers = append(s.helpers, old) // closed at its next turn
		}
	}
	s.res.Helpers++
	name := fmt.Sprintf("helper-%d", s.res.Helpers)
	parent := s.team.name(s.rng.IntN(s.cfg.Agents) + 1)
	if out, err := s.team.switchboard(ctx, "spawn", "--profile", "helper", "--name", name, "--parent", parent); err != nil {
		return fmt.Errorf("spawn %s: %w\n%s", name, err, out)
	}
	s.helpers = append(s.helpers, name)
	return nil
}

// killMaster kills the master with SIGKILL and has up start it again.
func (s *soak) killMaster(ctx context.Context) error {
	pid, ok := workspace.New(s.team.root).MasterRunning()
	if !ok {
		return fmt.Errorf("the master is not running")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill the master: %w", err)
	}
	s.res.Kills++
	fmt.Fprintf(s.cfg.Progress, "soak: master (pid %d) killed\n", pid)
	if !watch.Until(ctx, 10*time.Millisecond, 10*time.Second, func() bool {
		_, running := workspace.New(s.team.root).MasterRunning()
		return !running
	}) {
		return fmt.Errorf("the master killed still runs")
	}
	if out, err := s.team.switchboard(ctx, "up", "-d", "--no-console", "--socket", s.team.socket); err != nil {
		return fmt.Errorf("up after the kill: %w\n%s", err, out)
	}
	return nil
}

// soakSample is a sample under way.
type soakSample struct {
	pid    int
	cpu    time.Duration
	at     time.Time
	killed bool
}

func (s *soak) startSample(start time.Time) *soakSample {
	pid, _ := workspace.New(s.team.root).MasterRunning()
	cpu, _ := familyCPUTime(pid)
	return &soakSample{pid: pid, cpu: cpu, at: time.Now()}
}

// endSample measures the master and the records logged since the last
// sample, and says them.
func (s *soak) endSample(sample *soakSample, start time.Time) {
	out := SoakSample{At: time.Since(start).Round(time.Second), Killed: sample.killed}
	if pid, ok := workspace.New(s.team.root).MasterRunning(); ok {
		out.RSS, _ = residentBytes(pid)
		if fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid)); err == nil {
			out.FDs = len(fds)
		}
		out.CPU = -1
		if cpu, err := familyCPUTime(pid); err == nil && pid == sample.pid {
			out.CPU = 100 * float64(cpu-sample.cpu) / float64(time.Since(sample.at))
		}
	}
	var took []time.Duration
	s.logAt, _ = mailbox.EachLogRecord(mailbox.NewStore(s.team.root).LogPath(), s.logAt, func(rec mailbox.Record) bool {
		s.logged++
		if !s.lastLogged.IsZero() {
			s.res.LongestGap = max(s.res.LongestGap, rec.Time.Sub(s.lastLogged))
		}
		s.lastLogged = rec.Time
		if rec.Message.From != mailbox.System {
			took = append(took, rec.Time.Sub(rec.Message.Timestamp))
		}
		return true
	})
	out.Logged = s.logged
	if len(took) > 0 {
		slices.Sort(took)
		out.P50, out.P99, out.Max = took[len(took)/2], took[len(took)*99/100], took[len(took)-1]
	}
	s.res.Samples = append(s.res.Samples, out)
	fmt.Fprintf(s.cfg.Progress, "soak %6s: %6d logged  rss %5.1f MiB  fds %3d  cpu %s  latency p50 %s p99 %s max %s%s\n",
		out.At, out.Logged, float64(out.RSS)/(1<<20), out.FDs, CPUText(out.CPU), ms3(out.P50), ms3(out.P99), ms3(out.Max), map[bool]string{true: "  (master killed)"}[out.Killed])
}

// CPUText is a sample's CPU for a person: "—" when the master was started
// again in it.
func CPUText(percent float64) string {
	if percent < 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f %%", percent)
}

func ms3(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond)) }
