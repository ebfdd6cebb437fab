package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"switchboard/internal/tmux"
	"switchboard/profile"
	"switchboard/workspace"
)

// RestConfig says how to measure teams at rest, every process they
// started summed.
type RestConfig struct {
	Binary   string        // the switchboard binary
	Agents   int           // the team's size (DefaultTeamAgents when 0)
	Idle     time.Duration // how long each is watched at rest (DefaultTeamIdle when 0)
	MCPs     int           // idle MCP servers measured side by side (DefaultRestMCPs when 0)
	Dir      string        // where the workspace is made (the system's temporary folder when "")
	Progress io.Writer     // where progress goes; nil for nowhere
	// Baseline is another switchboard binary (an older build) whose teams
	// and MCP servers are measured too, in turns with Binary's; "" for
	// none.
	Baseline string
}

// DefaultRestMCPs is how many idle MCP servers are measured side by side.
const DefaultRestMCPs = 20

// RestResult is what RunRest measured: two teams at rest, each beside
// tmux alone with the same panes, and idle MCP servers beside programs
// that only wait on their input; all in percent of one core over Window.
type RestResult struct {
	Agents int           `json:"agents"`
	Window time.Duration `json:"window_ns"`
	// Hookless is a team whose agents have no hooks: each a program that
	// only reads its input (cat, kind generic), whose screen the master
	// follows.
	Hookless RestTeam `json:"hookless"`
	// Hooks is a team of shells with the prompt hook switchboard wires
	// (bash, kind shell).
	Hooks RestTeam `json:"hooks"`
	MCP   RestMCP  `json:"mcp"`
	// Baseline is the same of RestConfig.Baseline's binary; nil without
	// one.
	Baseline *RestBaseline `json:"baseline,omitempty"`
}

// RestBaseline is the teams and an MCP server of another binary, measured
// in the same run.
type RestBaseline struct {
	Binary   string   `json:"binary"`
	Hookless RestTeam `json:"hookless"`
	Hooks    RestTeam `json:"hooks"`
	MCP      float64  `json:"mcp_each_percent"`
}

// RestTeam is a team brought up by `up -d` at rest, with one idle
// `switchboard mcp` per agent, every process it started summed, beside the
// same panes in tmux alone.
type RestTeam struct {
	// Floor is tmux alone: its server and the panes' programs.
	Floor float64 `json:"floor_percent"`
	// Team is every process summed: the tmux server and everything in
	// its panes, the master with its tmux clients, the console that up
	// opens, and the MCP servers.
	Team float64 `json:"team_percent"`
	// Team's parts.
	Master    float64 `json:"master_percent"`  // with its tmux clients
	Console   float64 `json:"console_percent"` // switchboard top
	Server    float64 `json:"tmux_percent"`    // the tmux server alone
	Programs  float64 `json:"agents_percent"`  // the agents' programs in their panes
	MCP       float64 `json:"mcp_percent"`     // every MCP server
	Processes int     `json:"processes"`
}

// Above is what the team costs beyond tmux alone with the same panes.
func (r RestTeam) Above() float64 { return r.Team - r.Floor }

// RestMCP is idle MCP servers side by side, beside as many programs that
// only wait on their input, over the same window.
type RestMCP struct {
	Servers int     `json:"servers"`
	Each    float64 `json:"each_percent"`  // one idle switchboard mcp
	Floor   float64 `json:"floor_percent"` // one cat that waits on its input
}

// RunRest measures, in a real tmux server, a team of cfg.Agents without
// hooks and one of shells with hooks, each brought up as a person does
// (up -d, which opens the console) with an idle MCP server per agent, at
// rest over cfg.Idle, every process it started summed, beside tmux alone
// with the same panes; then cfg.MCPs idle MCP servers beside as many
// programs that wait on their input. It needs tmux and bash.
func RunRest(ctx context.Context, cfg RestConfig) (*RestResult, error) {
	if cfg.Agents <= 0 {
		cfg.Agents = DefaultTeamAgents
	}
	if cfg.Idle <= 0 {
		cfg.Idle = DefaultTeamIdle
	}
	if cfg.MCPs <= 0 {
		cfg.MCPs = DefaultRestMCPs
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	if !tmux.Installed() {
		return nil, fmt.Errorf("%w: tmux is not installed", ErrNoTmux)
	}
	for _, program := range []string{teamShell, restingProgram} {
		if _, err := exec.LookPath(program); err != nil {
			return nil, fmt.Errorf("%w: %s is not installed", ErrNoTmux, program)
		}
	}
	dir, err := os.MkdirTemp(cfg.Dir, "switchboard-bench-rest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	t := &teamRun{cfg: TeamConfig{Binary: cfg.Binary, Agents: cfg.Agents, Idle: cfg.Idle, Dir: cfg.Dir, Progress: cfg.Progress},
		root: dir, socket: fmt.Sprintf("sbbench-rest-%d", os.Getpid())}
	defer t.down()
	res := &RestResult{Agents: cfg.Agents, Window: cfg.Idle}
	// The baseline's teams are brought up by the same run, in the same
	// workspace, with the other binary.
	var before *teamRun
	if cfg.Baseline != "" {
		res.Baseline = &RestBaseline{Binary: cfg.Baseline}
		b := *t
		b.cfg.Binary = cfg.Baseline
		before = &b
	}
	for _, team := range []struct {
		row, baseline func(*RestResult) *RestTeam
		about         string
		kind          string
		command       func(string) string
		floor         []string
	}{
		{func(r *RestResult) *RestTeam { return &r.Hookless }, func(r *RestResult) *RestTeam { return &r.Baseline.Hookless },
			"without hooks", profile.KindGeneric, func(string) string { return restingProgram }, []string{restingProgram}},
		{func(r *RestResult) *RestTeam { return &r.Hooks }, func(r *RestResult) *RestTeam { return &r.Baseline.Hooks },
			"with hooks", profile.KindShell, restingShell, []string{teamShell, "--norc", "--noprofile"}},
	} {
		row := team.row(res)
		fmt.Fprintf(cfg.Progress, "rest, %s: %d panes by tmux alone, for %s\n", team.about, cfg.Agents, cfg.Idle)
		if row.Floor, err = t.restFloor(ctx, team.floor); err != nil {
			return nil, err
		}
		fmt.Fprintf(cfg.Progress, "rest, %s: up of %d agents with an MCP server each, for %s\n", team.about, cfg.Agents, cfg.Idle)
		if err := t.restTeam(ctx, team.kind, team.command, row); err != nil {
			return nil, err
		}
		if before != nil {
			fmt.Fprintf(cfg.Progress, "rest, %s: the same with %s, for %s\n", team.about, cfg.Baseline, cfg.Idle)
			was := team.baseline(res)
			was.Floor = row.Floor
			if err := before.restTeam(ctx, team.kind, team.command, was); err != nil {
				return nil, fmt.Errorf("the baseline: %w", err)
			}
		}
	}
	fmt.Fprintf(cfg.Progress, "rest: %d idle MCP servers beside %d programs that wait on their input, for %s\n", cfg.MCPs, cfg.MCPs, cfg.Idle)
	baseline := ""
	if before != nil {
		baseline = cfg.Baseline
	}
	mcp, was, err := t.restMCP(ctx, cfg.MCPs, baseline)
	if err != nil {
		return nil, err
	}
	res.MCP = mcp
	if before != nil {
		res.Baseline.MCP = was
	}
	return res, nil
}

// AddRest adds the teams at rest to the result, and checks them.
func (r *Result) AddRest(rest *RestResult) {
	r.Rest = rest
	r.check()
}

// restingProgram is the program of an agent without hooks at rest: it
// only reads its input.
const restingProgram = "cat"

// restFloor makes the team's panes with tmux alone, each running program,
// and measures the server with its panes at rest.
func (t *teamRun) restFloor(ctx context.Context, program []string) (float64, error) {
	c, server, _, err := t.bareTmux(ctx, program)
	defer c.KillServer(context.Background())
	if err != nil {
		return 0, err
	}
	cpu, _, err := partsCPU(ctx, t.cfg.Idle, part{roots: []int{server}})
	if err != nil {
		return 0, err
	}
	return cpu[0], nil
}

// restTeam brings the team up with its agents of kind running command,
// and one idle MCP server each, and measures every process at rest.
func (t *teamRun) restTeam(ctx context.Context, kind string, command func(string) string, row *RestTeam) error {
	t.down()
	if err := t.write(kind, command); err != nil {
		return err
	}
	if out, err := t.switchboard(ctx, "up", "-d", "--socket", t.socket); err != nil {
		return fmt.Errorf("up: %w\n%s", err, out)
	}
	if err := t.waitAtRest(ctx); err != nil {
		return err
	}
	var names []string
	for i := 1; i <= t.cfg.Agents; i++ {
		names = append(names, t.name(i))
	}
	servers, err := t.startMCPs(ctx, t.cfg.Binary, names)
	defer func() { stopAll(servers) }()
	if err != nil {
		return err
	}
	s, err := t.session()
	if err != nil {
		return err
	}
	master, ok := workspace.New(t.root).MasterRunning()
	if !ok {
		return errors.New("the master is not running")
	}
	console, err := t.consolePID(ctx)
	if err != nil {
		return err
	}
	mcps := make([]int, len(servers))
	for i, p := range servers {
		mcps[i] = p.cmd.Process.Pid
	}
	cpu, n, err := partsCPU(ctx, t.cfg.Idle,
		part{roots: append([]int{s.ServerPID}, mcps...)},
		part{roots: []int{master}},
		part{roots: []int{console}},
		part{roots: []int{s.ServerPID}, alone: true},
		part{roots: mcps})
	if err != nil {
		return err
	}
	row.Team, row.Master, row.Console, row.Server, row.MCP, row.Processes = cpu[0], cpu[1], cpu[2], cpu[3], cpu[4], n
	row.Programs = row.Team - row.Master - row.Console - row.Server - row.MCP
	return nil
}

// consolePID is the process of the console up opened, in its window.
func (t *teamRun) consolePID(ctx context.Context) (int, error) {
	panes, err := tmux.NewClient(t.socket, nil).ListPanes(ctx)
	if err != nil {
		return 0, err
	}
	for _, p := range panes {
		if p.Window == "console" && !p.Dead {
			return p.PID, nil
		}
	}
	return 0, errors.New("up opened no console window")
}

// restMCP measures n idle MCP servers of the team's first agents (no team
// up) beside n programs that only wait on their input, and, given a
// baseline binary, n of its MCP servers, all side by side over the window;
// it returns the MCP servers' figures, and the baseline's (each, in
// percent of one core).
func (t *teamRun) restMCP(ctx context.Context, n int, baseline string) (RestMCP, float64, error) {
	t.down()
	var names []string
	for i := range n {
		names = append(names, t.name(i%t.cfg.Agents+1))
	}
	var groups [3][]*idleProcess // switchboard mcp, cat, the baseline's mcp
	defer func() {
		for _, g := range groups {
			stopAll(g)
		}
	}()
	var err error
	if groups[0], err = t.startMCPs(ctx, t.cfg.Binary, names); err != nil {
		return RestMCP{}, 0, err
	}
	for range n {
		p, err := startIdle(exec.Command(restingProgram))
		if err != nil {
			return RestMCP{}, 0, err
		}
		groups[1] = append(groups[1], p)
	}
	if baseline != "" {
		if groups[2], err = t.startMCPs(ctx, baseline, names); err != nil {
			return RestMCP{}, 0, fmt.Errorf("the baseline: %w", err)
		}
	}
	parts := make([]part, len(groups))
	for i, g := range groups {
		for _, p := range g {
			parts[i].roots = append(parts[i].roots, p.cmd.Process.Pid)
		}
	}
	cpu, _, err := partsCPU(ctx, t.cfg.Idle, parts...)
	if err != nil {
		return RestMCP{}, 0, err
	}
	return RestMCP{Servers: n, Each: cpu[0] / float64(n), Floor: cpu[1] / float64(n)}, cpu[2] / float64(n), nil
}

// idleProcess is a process whose input the bench holds open, as an agent's
// client holds its MCP server's, so that it waits.
type idleProcess struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out io.ReadCloser
}

func startIdle(cmd *exec.Cmd) (*idleProcess, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	return &idleProcess{cmd: cmd, in: in, out: out}, nil
}

// stop closes its input, at whose end it exits, and waits for it; after
// stopGrace it is killed.
func (p *idleProcess) stop() {
	p.in.Close()
	done := make(chan struct{})
	go func() {
		io.Copy(io.Discard, p.out)
		p.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(stopGrace):
		p.cmd.Process.Kill()
		<-done
	}
}

func stopAll(ps []*idleProcess) {
	for _, p := range ps {
		p.stop()
	}
}

// mcpHandshake is what a client says to a new MCP server before it waits
// for its agent to call a tool: initialize, initialized, and the list of
// the tools; the server answers the first and the last.
const mcpHandshake = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
`

// startMCPs starts `switchboard mcp` of binary for each agent, as an
// agent's client starts it, with the handshake done; it returns those
// started, also on an error, for the caller to stop.
func (t *teamRun) startMCPs(ctx context.Context, binary string, agents []string) ([]*idleProcess, error) {
	var started []*idleProcess
	for _, agent := range agents {
		cmd := exec.CommandContext(ctx, binary, "--as", agent, "mcp")
		cmd.Dir = t.root
		cmd.Env = t.environ("SWITCHBOARD_AGENT="+agent, "TMUX_PANE=")
		p, err := startIdle(cmd)
		if err != nil {
			return started, err
		}
		started = append(started, p)
		if err := p.handshake(); err != nil {
			return started, fmt.Errorf("switchboard mcp of %s: %w", agent, err)
		}
	}
	return started, nil
}

// handshake says mcpHandshake and reads the two answers, within 30 s.
func (p *idleProcess) handshake() error {
	if _, err := io.WriteString(p.in, mcpHandshake); err != nil {
		return err
	}
	answered := make(chan error, 1)
	go func() {
		lines := bufio.NewReader(p.out)
		for range 2 {
			line, err := lines.ReadString('\n')
			if err != nil {
				answered <- err
				return
			}
			if !strings.Contains(line, `"result"`) {
				answered <- fmt.Errorf("answered %s", strings.TrimSpace(line))
				return
			}
		}
		answered <- nil
	}()
	select {
	case err := <-answered:
		return err
	case <-time.After(30 * time.Second):
		return errors.New("no answer to the handshake within 30 s")
	}
}
