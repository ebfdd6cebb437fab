package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"switchboard/conversation"
	"switchboard/internal/tmux"
	"switchboard/internal/watch"
	"switchboard/lifecycle"
	"switchboard/mailbox"
	"switchboard/profile"
	"switchboard/workspace"
)

// ErrNoTmux is returned when the team run cannot be made here.
var ErrNoTmux = errors.New("the team run needs tmux and bash")

// TeamConfig says how to measure a team at rest in a real tmux server.
type TeamConfig struct {
	Binary   string        // the switchboard binary
	Agents   int           // the team's size (DefaultTeamAgents when 0)
	Idle     time.Duration // how long the team at rest is watched (DefaultTeamIdle when 0)
	Notices  int           // notices timed (DefaultTeamNotices when 0)
	Dir      string        // where the workspace is made (the system's temporary folder when "")
	Progress io.Writer     // where progress goes; nil for nowhere
}

// Defaults of the team run.
const (
	DefaultTeamAgents  = 100
	DefaultTeamIdle    = 60 * time.Second
	DefaultTeamNotices = 5
)

// TeamResult is what RunTeam measured, each beside its floor.
type TeamResult struct {
	Agents int `json:"agents"`
	// Up is `switchboard up -d` of the whole team; UpFloor is the same
	// panes made by one tmux call each, running the same shells.
	Up      time.Duration `json:"up_ns"`
	UpFloor time.Duration `json:"up_floor_ns"`
	// Rest is the CPU use, in percent of one core, of the master and of the
	// tmux server with the team at rest over Window; RestFloor the tmux
	// server's with the same panes and no master.
	Window       time.Duration `json:"window_ns"`
	MasterRest   float64       `json:"master_percent"`
	TmuxRest     float64       `json:"tmux_percent"`
	TmuxRestBare float64       `json:"tmux_bare_percent"`
	MasterRSS    int64         `json:"master_rss_bytes"`
	// HooklessMasterRest and HooklessTmuxRest are the same team at rest
	// with every agent a program without hooks (kind generic), whose state
	// the master follows from what its pane prints.
	HooklessMasterRest float64 `json:"hookless_master_percent"`
	HooklessTmuxRest   float64 `json:"hookless_tmux_percent"`
	// Notice is the median time from a message posted to one idle agent
	// among the team to its notice reaching the agent's program; its floor
	// is the same line typed with tmux send-keys.
	Notice      time.Duration `json:"notice_ns"`
	NoticeFloor time.Duration `json:"notice_floor_ns"`
	// Console is switchboard top beside the team at rest.
	Console *ConsoleResult `json:"console,omitempty"`
	// Typing is what notices cost while mail flows to the team without
	// hooks.
	Typing *Typing `json:"typing,omitempty"`
}

// teamShell is the program of the team's resting agents: a shell that does
// nothing until spoken to, with the prompt hook switchboard wires for it
// when the agent is of kind shell, and none when it is of kind generic.
const teamShell = "bash"

// check checks the numbers a person gives, as given: a zero is no default.
func (cfg TeamConfig) check() error {
	switch {
	case cfg.Agents < 1:
		return want("team agents", "must be at least 1")
	case cfg.Idle <= 0:
		return want("team idle", "must be positive, like 60s")
	}
	return nil
}

// RunTeam brings up a team of cfg.Agents in a real tmux server (one agent
// whose program records what is typed to it, the others shells at rest),
// and measures the time up takes, the CPU the master and the tmux server
// use while the team rests, the master's memory, and how long a notice
// takes to reach the recording agent; then the CPU of the same team at
// rest with no agent's hooks; each beside its floor, measured in the same
// run. It needs tmux and bash.
func RunTeam(ctx context.Context, cfg TeamConfig) (*TeamResult, error) {
	if cfg.Agents <= 0 {
		cfg.Agents = DefaultTeamAgents
	}
	if cfg.Idle <= 0 {
		cfg.Idle = DefaultTeamIdle
	}
	if cfg.Notices <= 0 {
		cfg.Notices = DefaultTeamNotices
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	if !tmux.Installed() {
		return nil, fmt.Errorf("%w: tmux is not installed", ErrNoTmux)
	}
	if _, err := exec.LookPath(teamShell); err != nil {
		return nil, fmt.Errorf("%w: bash is not installed", ErrNoTmux)
	}
	dir, err := os.MkdirTemp(cfg.Dir, "switchboard-bench-team-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	t := &teamRun{cfg: cfg, root: dir, socket: fmt.Sprintf("sbbench-%d", os.Getpid())}
	if err := t.write(profile.KindShell, restingShell); err != nil {
		return nil, err
	}
	res := &TeamResult{Agents: cfg.Agents}

	fmt.Fprintf(cfg.Progress, "team floor: %d panes made by tmux alone\n", cfg.Agents)
	if res.UpFloor, res.TmuxRestBare, err = t.floor(ctx); err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Progress, "team: up of %d agents\n", cfg.Agents)
	defer t.down()
	start := time.Now()
	if out, err := t.switchboard(ctx, "up", "-d", "--no-console", "--socket", t.socket); err != nil {
		return nil, fmt.Errorf("up: %w\n%s", err, out)
	}
	res.Up = time.Since(start)
	if err := t.waitAtRest(ctx); err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Progress, "team: at rest for %s, with the console open\n", cfg.Idle)
	consolePID, err := t.startConsole(ctx)
	if err != nil {
		return nil, err
	}
	res.Console = &ConsoleResult{}
	if err := t.measureRest(ctx, res, consolePID); err != nil {
		return nil, err
	}
	if res.Console.Frame, res.Console.FrameFloor, err = t.consoleFrame(ctx); err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Progress, "team: %d notices to one agent of %d\n", cfg.Notices, cfg.Agents)
	if res.Notice, res.NoticeFloor, err = t.notices(ctx); err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Progress, "team without hooks: at rest for %s\n", cfg.Idle)
	if res.HooklessMasterRest, res.HooklessTmuxRest, err = t.hooklessRest(ctx); err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Progress, "team without hooks: %d messages a second for %s, with a control connection and with a tmux process per command\n", DefaultTypingRate, cfg.Idle)
	if res.Typing, err = t.typing(ctx); err != nil {
		return nil, err
	}
	return res, nil
}

// hooklessRest brings the team up again with every agent of kind generic,
// and measures the master's and the tmux server's CPU at rest.
func (t *teamRun) hooklessRest(ctx context.Context) (master, server float64, err error) {
	t.down()
	if err := t.write(profile.KindGeneric, bareShell); err != nil {
		return 0, 0, err
	}
	if out, err := t.switchboard(ctx, "up", "-d", "--no-console", "--socket", t.socket); err != nil {
		return 0, 0, fmt.Errorf("up without hooks: %w\n%s", err, out)
	}
	if err := t.waitAtRest(ctx); err != nil {
		return 0, 0, err
	}
	var rest TeamResult
	if err := t.measureRest(ctx, &rest, 0); err != nil {
		return 0, 0, err
	}
	return rest.MasterRest, rest.TmuxRest, nil
}

type teamRun struct {
	cfg    TeamConfig
	root   string
	socket string
	env    []string // more of the environment of the switchboard commands run
}

// recorder is the agent, spawned once the team's rest is measured, whose
// program appends what it is typed to a file: an agent without hooks, whose
// screen the master must watch.
const recorder = "recorder"

func (t *teamRun) name(i int) string { return fmt.Sprintf("a%03d", i) }

func (t *teamRun) recording() string { return filepath.Join(t.root, "received") }

// restingShell is the command of a resting shell agent: with the prompt
// hook switchboard wires for it when it is of kind shell.
func restingShell(string) string { return teamShell }

// bareShell is the command of a resting shell without hooks: no start-up
// file of its own, as the floor's.
func bareShell(string) string { return teamShell + ", --norc, --noprofile" }

// write makes the workspace, its agents of kind, each running command(its
// name) (the items of a YAML flow sequence): every agent may write to
// every other.
func (t *teamRun) write(kind string, command func(agent string) string) error {
	ws := workspace.New(t.root)
	if err := os.MkdirAll(ws.Profiles(), 0o755); err != nil {
		return err
	}
	var rules strings.Builder
	rules.WriteString("allowed_interactions:\n")
	for i := 1; i <= t.cfg.Agents; i++ {
		fmt.Fprintf(&rules, "  %s: {can_send_to: [\"*\"], can_receive_from: [\"*\"]}\n", t.name(i))
		agent := fmt.Sprintf("kind: %s\ncommand: [%s]\n", kind, command(t.name(i)))
		if err := os.WriteFile(ws.ProfilePath(t.name(i)), []byte(agent), 0o644); err != nil {
			return err
		}
	}
	rec := fmt.Sprintf("kind: generic\ncommand: [sh, -c, %s]\n", strconv.Quote("cat >> "+t.recording()))
	if err := os.WriteFile(ws.ProfilePath(recorder), []byte(rec), 0o644); err != nil {
		return err
	}
	return os.WriteFile(ws.RulesPath(), []byte(rules.String()), 0o644)
}

// switchboard runs the binary in the workspace, with a home of its own so
// that no start-up file of the machine's user runs in the shells.
func (t *teamRun) switchboard(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, t.cfg.Binary, args...)
	cmd.Dir = t.root
	cmd.Env = t.environ()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// environ is the environment of a switchboard process of the bench, with
// more (KEY=VALUE) set: the workspace's, outside tmux, as the operator,
// with the workspace as its home.
func (t *teamRun) environ(more ...string) []string {
	env := append(os.Environ(), "SWITCHBOARD_ROOT="+t.root, "SWITCHBOARD_AGENT=", "TMUX=", "HOME="+t.root)
	env = append(env, t.env...)
	return append(env, more...)
}

func (t *teamRun) down() {
	t.switchboard(context.Background(), "down")
	tmux.NewClient(t.socket, nil).KillServer(context.Background()) // down stopped it, or it is already gone
}

// floor makes the same number of panes, each running the resting shell,
// one tmux call each, and measures the bare server's CPU at rest.
func (t *teamRun) floor(ctx context.Context) (up time.Duration, rest float64, err error) {
	c, pid, up, err := t.bareTmux(ctx, []string{teamShell, "--norc", "--noprofile"})
	defer c.KillServer(context.Background())
	if err != nil {
		return 0, 0, err
	}
	cpu, err := cpuPercent(ctx, t.cfg.Idle, pid)
	if err != nil {
		return 0, 0, err
	}
	return up, cpu[0], nil
}

// bareTmux makes as many panes as the team has agents, each running
// program, one tmux call each, on a server of its own; it returns the
// server, for the caller to kill also on an error, its pid, and the time
// the panes took.
func (t *teamRun) bareTmux(ctx context.Context, program []string) (c *tmux.Client, server int, took time.Duration, err error) {
	c = tmux.NewClient(t.socket+"-floor", nil)
	pane := tmux.PaneSpec{Dir: t.root, Command: program, Env: map[string]string{"HOME": t.root}}
	start := time.Now()
	if _, err := c.NewSession(ctx, "floor", "w1", 240, 60, pane); err != nil {
		return c, 0, 0, err
	}
	for i := 2; i <= t.cfg.Agents; i++ {
		if _, err := c.NewWindow(ctx, "floor", fmt.Sprintf("w%d", i), pane); err != nil {
			return c, 0, 0, err
		}
	}
	took = time.Since(start)
	server, err = c.ServerPID(ctx)
	return c, server, took, err
}

// waitAtRest waits until every agent has said it is idle (the shells'
// prompt hooks) and the recorder's pane is up.
func (t *teamRun) waitAtRest(ctx context.Context) error {
	deadline := time.Now().Add(2 * time.Minute)
	for i := 1; i <= t.cfg.Agents; i++ {
		if err := t.waitIdle(ctx, t.name(i), deadline); err != nil {
			return err
		}
	}
	// What followed up (the bulletin, the borders) settles too; a short
	// window (a test's) waits as long as it.
	return watch.Sleep(ctx, min(3*time.Second, t.cfg.Idle))
}

// session is the team's tmux session, as up saved it.
func (t *teamRun) session() (*lifecycle.Session, error) {
	s, ok, err := lifecycle.LoadSession(workspace.New(t.root))
	if err != nil {
		return nil, fmt.Errorf("the team's session: %w", err)
	}
	if !ok {
		return nil, errors.New("the team's session: up saved none")
	}
	return s, nil
}

// waitIdle waits until the agent's state is idle.
func (t *teamRun) waitIdle(ctx context.Context, agent string, deadline time.Time) error {
	return t.waitIdleSince(ctx, agent, time.Time{}, deadline)
}

// waitIdleSince waits until the agent's state is idle, and has turned so
// after since.
func (t *teamRun) waitIdleSince(ctx context.Context, agent string, since, deadline time.Time) error {
	store := mailbox.NewStore(t.root)
	var st conversation.State
	if watch.Until(ctx, 50*time.Millisecond, time.Until(deadline), func() bool {
		st, _, _ = conversation.Of(store).State(agent)
		return st.State == conversation.Idle && st.Since.After(since)
	}) {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return fmt.Errorf("%s did not come to rest in time (state %q)", agent, st.State)
}

// measureRest reads the CPU of the master and of the tmux server (and of
// the console, when its pid is given) over the window, and the master's
// memory.
func (t *teamRun) measureRest(ctx context.Context, res *TeamResult, consolePID int) error {
	mpid, ok := workspace.New(t.root).MasterRunning()
	if !ok {
		return errors.New("the master is not running")
	}
	s, err := t.session()
	if err != nil {
		return err
	}
	pids := []int{mpid, s.ServerPID}
	if consolePID > 0 {
		pids = append(pids, consolePID)
	}
	rest, err := cpuPercent(ctx, t.cfg.Idle, pids...)
	if err != nil {
		return err
	}
	res.Window, res.MasterRest, res.TmuxRest = t.cfg.Idle, rest[0], rest[1]
	if consolePID > 0 {
		res.Console.Rest = rest[2]
	}
	res.MasterRSS, err = residentBytes(mpid)
	return err
}

// notices spawns the recorder, posts messages to it and times each until
// its notice is in the recording, and as many lines typed with send-keys
// alone.
func (t *teamRun) notices(ctx context.Context) (notice, floor time.Duration, err error) {
	if out, err := t.switchboard(ctx, "spawn", "--profile", recorder, "--name", recorder); err != nil {
		return 0, 0, fmt.Errorf("spawn the recorder: %w\n%s", err, out)
	}
	if err := t.waitIdle(ctx, recorder, time.Now().Add(time.Minute)); err != nil {
		return 0, 0, err
	}
	s, err := t.session()
	if err != nil {
		return 0, 0, err
	}
	pane := s.Agents[recorder].Pane
	c := tmux.NewClient(t.socket, nil)
	var took, floors []time.Duration
	var settled time.Time // the agent's screen last changed by then
	for i := range t.cfg.Notices {
		// Idle again after the last line: a notice is typed to an idle
		// agent, and the figure is the master's, not the agent's work.
		if err := t.waitIdleSince(ctx, recorder, settled, time.Now().Add(time.Minute)); err != nil {
			return 0, 0, err
		}
		title := fmt.Sprintf("bench notice %d", i)
		start := time.Now()
		if out, err := t.switchboard(ctx, "send", "--to", recorder, "--title", title); err != nil {
			return 0, 0, fmt.Errorf("send: %w\n%s", err, out)
		}
		d, err := t.waitRecorded(ctx, title, start)
		if err != nil {
			return 0, 0, err
		}
		took = append(took, d)

		line := fmt.Sprintf("floor line %d", i)
		start = time.Now()
		if err := c.TypeCommand(ctx, pane, line); err != nil {
			return 0, 0, err
		}
		if d, err = t.waitRecorded(ctx, line, start); err != nil {
			return 0, 0, err
		}
		floors = append(floors, d)
		settled = time.Now()
	}
	return median(took), median(floors), nil
}

func (t *teamRun) waitRecorded(ctx context.Context, text string, since time.Time) (time.Duration, error) {
	var took time.Duration
	if watch.Until(ctx, 2*time.Millisecond, 30*time.Second, func() bool {
		data, _ := os.ReadFile(t.recording())
		took = time.Since(since)
		return strings.Contains(string(data), text)
	}) {
		return took, nil
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("%q did not reach the recording agent within 30 s", text)
}

// cpuPercent is the CPU each process used over window, in percent of one
// core.
func cpuPercent(ctx context.Context, window time.Duration, pids ...int) ([]float64, error) {
	clocks := make([]cpuClock, len(pids))
	for i, pid := range pids {
		clocks[i] = func() (time.Duration, error) { return processCPUTime(pid) }
	}
	return cpuPercentOf(ctx, window, clocks...)
}

// cpuClock reads the CPU time something has used so far.
type cpuClock func() (time.Duration, error)

// cpuPercentOf is the CPU each clock counted over window, in percent of one
// core.
func cpuPercentOf(ctx context.Context, window time.Duration, clocks ...cpuClock) ([]float64, error) {
	before := make([]time.Duration, len(clocks))
	for i, clock := range clocks {
		var err error
		if before[i], err = clock(); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	if err := watch.Sleep(ctx, window); err != nil {
		return nil, err
	}
	elapsed := time.Since(start)
	out := make([]float64, len(clocks))
	for i, clock := range clocks {
		after, err := clock()
		if err != nil {
			return nil, err
		}
		out[i] = 100 * float64(after-before[i]) / float64(elapsed)
	}
	return out, nil
}

// residentBytes is a process's resident memory.
func residentBytes(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// AddHistory adds the history's figures to the result, and checks them.
func (r *Result) AddHistory(h *HistoryResult) {
	r.History = h
	r.check()
}

// AddSoak adds the soak's figures to the result.
func (r *Result) AddSoak(s *SoakResult) { r.Soak = s }

// AddTeam adds the team's figures to the result, and checks them.
func (r *Result) AddTeam(t *TeamResult) {
	r.Team = t
	r.check()
}
