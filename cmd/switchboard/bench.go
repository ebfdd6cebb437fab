package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"switchboard/bench"
)

type benchOptions struct {
	bench.Suite
	quick bool
}

// quickTeam are the team run's numbers for --quick.
var quickTeam = bench.TeamConfig{Agents: 10, Idle: 3 * time.Second, Notices: 3}

func newBenchCmd(io *streams, g *globals) *cobra.Command {
	opts := &benchOptions{}
	cmd := &cobra.Command{
		Use:   "bench [--only routing|hooks|team|rest|history|soak|worktree|hub|hub-scale|memory] [--agents N] [--rate R] [--duration D] [--burst K] [--idle D] [--hooks-unread N] [--hooks-runs N] [--team-agents N] [--team-idle D] [--history-records N] [--history-inbox-files N] [--history-agents N] [--history-rest D] [--soak-duration D] [--soak-agents N] [--soak-rate R] [--soak-kills N] [--soak-sample D] [--worktree-files N] [--memory-messages N] [--memory-baseline BIN] [--rest-baseline BIN] [--scale-hosts N] [--scale-agents N] [--scale-rest D] [--scale-steady D] [--scale-burst K] [--scale-volume N] [--scale-hubs one|three|both] [--quick]",
		Short: "Measure routing latency and throughput, the hooks' run time, and a team at rest in tmux, on this machine",
		Long: `Measure how fast the master routes on this machine, in temporary workspaces
where every agent may write to every other:

  steady   --rate messages per second for --duration, from random agents to
           random others: outbox-to-inbox latency p50, p99 and max
  burst    --burst messages posted at once: messages per second from the first
           post to the last delivery
  idle     the master's CPU use over --idle (a duration, like 10s) with nothing to route

each with the master durable (the default) and with --no-fsync, beside a floor
measured in the same run: a minimal relay in this process that only reads,
parses and re-publishes each file (tmp + rename, with fsync of file and folder
when durable). The master is this binary's ` + "`master`" + ` command, run as a child
process. Targets (for 20 agents at 200 msg/s on 2 cores) are marked PASS or
MISS.

Then the hooks, which run before every prompt and after every tool call: in a
workspace of the default team where developer_agent has --hooks-unread unread
messages, the wall time of the whole process, from start to exit, of

  status --format line      the status line
  hook claude, all new      UserPromptSubmit with every message new: the first
                            prompt after they arrived lists the newest
  hook claude, all shown    UserPromptSubmit with every message shown before
  nothing to do             hook claude outside a team: it prints {} at once,
                            the cost of starting this binary

each run --hooks-runs times, taking turns, beside /bin/true run in the same
turns: the cost of starting any process here. The median, p90 and the median
over /bin/true's are printed; the targets are the medians.

Then a team of --team-agents shells at rest in a real tmux server (it needs
tmux and bash, and is left out, saying so, without them):

  up         switchboard up -d of the whole team, beside the same panes made
             by one tmux call each
  at rest    the CPU of the master and of the tmux server over --team-idle,
             beside the bare tmux server's with the same panes; the master's
             memory
  console    switchboard top open beside the team at rest: its CPU over the
             same window, and the time top --once takes, beside /bin/true
  notice     a message to one more agent (spawned, without hooks, so that
             what its pane prints is followed) until its notice reaches its
             program, beside the same line typed with tmux send-keys
  no hooks   the team up again with every agent of kind generic (no hooks:
             the master follows what their panes print), at rest over
             --team-idle
  typing     the same team, each agent a program that keeps what is typed
             to it, while 15 messages a second are posted to them over
             --team-idle: the CPU of the master with the tmux processes it
             starts, beside the same with a tmux process per command (the
             master's way before its control connection to the session)

The rest runs only when asked for (--only rest): a team of --team-agents
brought up as a person does (up -d, which opens the console), with an idle
switchboard mcp per agent as its client would start it (its input open, the
handshake done), at rest over --team-idle, every process it started summed
(the tmux server and everything in its panes, the master with its tmux
clients, the console, the MCP servers), beside tmux alone with the same
panes: first with agents without hooks (each a program that only reads its
input), then with shells and their prompt hook. Then 20 idle MCP servers
beside 20 programs that only wait on their input, over the same window.
About six minutes at the default numbers. --rest-baseline BIN brings the
same teams up with another switchboard binary (an older build) in turns,
and runs its MCP servers beside, for figures from the same run.

The history runs only when asked for (--only history): the master started on
a workspace of --history-agents whose log holds --history-records records and
whose inboxes hold --history-inbox-files of them unread, beside the same team
with an empty log: the time until it runs, a message posted a second later
until it is delivered, its memory, and its CPU at rest over --history-rest.
Writing the history takes about a minute.

The soak runs only when asked for (--only soak): a team of --soak-agents
agents without hooks worked for --soak-duration with --soak-rate messages a
second of 10-100 KB, every 10th to everyone, every 20th along a pair the
rules forbid, a helper spawned and the last closed or cancelled every 30 s,
the rules written again in place every minute, and the master killed with
SIGKILL --soak-kills times. Every --soak-sample it prints the master's
memory, open files, CPU and routing latency; at the end it checks that every
message was logged once and every copy delivered once, that none forbidden
was delivered and nothing was left in an outbox, and exits 1 when one did not
hold.

The worktree run only when asked for (--only worktree): a workspace that is a
git repository of --worktree-files files, its team up in tmux; the median of
five spawns without a worktree, five with one, and five git worktree add
alone on the same repository.

The hub run only when asked for (--only hub): an embedded hub and two masters,
each on a workspace of its own; 200 messages one at a time, then a burst of
1,000, from an agent of the first host to another agent of it and to an agent
of the second: latency and throughput across the hop beside those on one host.

The scale run only when asked for (--only hub-scale): first every agent on one
host, one master and no hub, at rest over --scale-rest; then a hub and
--scale-hosts masters as processes, each of --scale-agents agents (profiles
whose command never runs: no tmux), every agent allowed to write to every
other. Once every host sees the whole team: the hub's CPU and the masters'
summed over --scale-rest at rest, with their memory; an agent's state until every host
shows it; 100 msg/s for --scale-steady within one host, then across hosts
(each to the next), p50 and p99 and the CPU meanwhile; a burst of
--scale-burst across hosts; the hub's disk after --scale-volume messages crossed it. Then the same with
a cluster of three hubs (--scale-hubs one or three runs only one of them).
About five minutes a run at the default numbers.

The memory run only when asked for (--only memory): a master (--no-fsync) routes
--memory-messages messages of 2 KB among 10 agents, each moved to read/ by its
recipient as it arrives; the master's resident memory is read at each fifth
of them, and at the end it may hold at most 8 MiB more than at the first.
--memory-baseline BIN routes the same through the master of another
switchboard binary (an older build) afterwards, for figures beside.

Progress goes to standard error; --json prints the numbers for scripts.

File creation, listing and fsync costs vary with the filesystem and with what
else runs: read the master against the floor of the same run, and the hooks
against /bin/true, and use --dir to measure on the filesystem where the team's
workspace lives.`,
		Example: `  switchboard bench                     # about five minutes
  switchboard bench --only team         # 100 agents at rest, about four minutes
  switchboard bench --only rest         # 100 agents at rest, every process summed, about six minutes
  switchboard bench --quick             # a few seconds, small numbers
  switchboard bench --only hooks        # the hooks alone, about 10 seconds
  switchboard bench --only history      # a master started on a million records, about five minutes
  switchboard bench --only soak --soak-duration 15m   # a long run, with SIGKILLs
  switchboard bench --only worktree     # spawn with a worktree on 10,000 files, about 20 seconds
  switchboard bench --only hub          # delivery across two hosts beside delivery on one, about 30 seconds
  switchboard bench --only memory       # a master's memory over 200,000 messages routed, a few minutes
  switchboard bench --only hub-scale --scale-hubs one   # 10 hosts of 100 agents through one hub, about five minutes
  switchboard bench --dir .              # on the filesystem of this folder
  switchboard bench --rate 500 --agents 50 --json`,
		Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.quick {
				opts.useQuick(cmd.Flags().Changed)
			}
			return runBench(cmd.Context(), io, g, opts)
		},
	}
	opts.Suite = bench.DefaultSuite()
	f := cmd.Flags()
	for _, o := range opts.Suite.Options() {
		name := benchFlag(o.Words)
		switch v := o.Value.(type) {
		case *int:
			f.IntVar(v, name, *v, o.Help)
		case *time.Duration:
			f.DurationVar(v, name, *v, o.Help)
		case *string:
			f.StringVar(v, name, *v, o.Help)
		}
	}
	f.BoolVar(&opts.quick, "quick", false, "small numbers for a first look: 4 agents, 100 msg/s for 1s, burst 200, idle 1s; hooks with 1000 unread, 10 runs; a team of 10 at rest for 3s")
	return cmd
}

// useQuick takes the numbers of bench.Quick for every flag not given.
func (opts *benchOptions) useQuick(given func(flag string) bool) {
	quick, quickHooks := bench.Quick(), bench.QuickHooks()
	for flag, apply := range map[string]func(){
		"agents":       func() { opts.Routing.Agents = quick.Agents },
		"rate":         func() { opts.Routing.Rate = quick.Rate },
		"duration":     func() { opts.Routing.Duration = quick.Duration },
		"burst":        func() { opts.Routing.Burst = quick.Burst },
		"idle":         func() { opts.Routing.Idle = quick.Idle },
		"hooks-unread": func() { opts.Hooks.Unread = quickHooks.Unread },
		"hooks-runs":   func() { opts.Hooks.Runs = quickHooks.Runs },
		"team-agents":  func() { opts.Team.Agents = quickTeam.Agents },
		"team-idle":    func() { opts.Team.Idle, opts.Team.Notices = quickTeam.Idle, quickTeam.Notices },
	} {
		if !given(flag) {
			apply()
		}
	}
}

func runBench(ctx context.Context, io *streams, g *globals, opts *benchOptions) error {
	suite := opts.Suite
	if err := suite.Check(); err != nil {
		return benchUsage(err)
	}
	bin, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the switchboard binary to run the master and hooks from: %w", err)
	}
	suite.Binary, suite.Progress = bin, io.errOut
	res, err := suite.Run(ctx)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if g.json {
		if err := writeJSON(io.out, res); err != nil {
			return err
		}
		return soakBroken(res)
	}
	first := true
	for _, table := range benchTables {
		if !table.measured(res) {
			continue
		}
		if !first {
			fmt.Fprintln(io.out)
		}
		first = false
		if err := table.print(io.out, res); err != nil {
			return err
		}
	}
	return soakBroken(res)
}

// benchUsage says what an option of the bench must be in the words of its
// flag, named after the option.
func benchUsage(err error) error {
	var opt *bench.OptionError
	if !errors.As(err, &opt) {
		return err
	}
	return usageError("--%s %s", benchFlag(opt.Option), opt.Want)
}

// benchFlag is the flag of the bench's option named in words.
func benchFlag(words string) string { return strings.ReplaceAll(words, " ", "-") }

// benchTables are the tables of the bench's figures, in the order they
// print, each printed when its part measured something.
var benchTables = []struct {
	measured func(*bench.Result) bool
	print    benchPrinter
}{
	{func(r *bench.Result) bool { return r.Master != nil }, printBenchTable},
	{func(r *bench.Result) bool { return r.Hooks != nil }, printHookTable},
	{func(r *bench.Result) bool { return r.Team != nil }, printTeamTable},
	{func(r *bench.Result) bool { return r.Rest != nil }, printRestTable},
	{func(r *bench.Result) bool { return r.History != nil }, printHistoryTable},
	{func(r *bench.Result) bool { return r.Soak != nil }, printSoakTable},
	{func(r *bench.Result) bool { return r.Worktree != nil }, printWorktreeTable},
	{func(r *bench.Result) bool { return r.Hub != nil }, printHubTable},
	{func(r *bench.Result) bool { return r.Memory != nil }, printMemoryTable},
	{func(r *bench.Result) bool { return len(r.HubScale) > 0 }, printHubScaleTable},
}

// soakBroken ends the command with exit 1 when the soak found a promise
// broken; its table or its numbers said which.
func soakBroken(res *bench.Result) error {
	if res.Soak != nil && !res.Soak.Kept() {
		return exitWith(exitError)
	}
	return nil
}

// printHubTable writes delivery to an agent of another host beside
// delivery to one of the sender's.
func printHubTable(w io.Writer, r *bench.Result) error {
	h := r.Hub
	t := &benchTable{rightAligned: []bool{false, true, true, false, false}}
	t.add("two masters joined through a hub", "same host", "other host", "target", "")
	row := func(name, local, remote, checkRow string) { t.addChecked(r, checkRow, name, local, remote) }
	row(fmt.Sprintf("one at a time (%d): p50", h.Local.Latency.Count), benchMillis(h.Local.Latency.P50)+" ms", benchMillis(h.Remote.Latency.P50)+" ms", bench.RowHubP50)
	row("p99", benchMillis(h.Local.Latency.P99)+" ms", benchMillis(h.Remote.Latency.P99)+" ms", "")
	row(fmt.Sprintf("a burst of %d", h.Local.Burst.Count), fmt.Sprintf("%.0f msg/s", h.Local.Burst.PerSecond), fmt.Sprintf("%.0f msg/s", h.Remote.Burst.PerSecond), bench.RowHubBurst)
	row("lost", fmt.Sprint(h.Local.Latency.Lost+h.Local.Burst.Lost), fmt.Sprint(h.Remote.Latency.Lost+h.Remote.Burst.Lost), "")
	return t.write(w)
}

// printWorktreeTable writes a spawn with a worktree beside one without and
// beside git's own command.
func printWorktreeTable(w io.Writer, r *bench.Result) error {
	wt := r.Worktree
	t := &benchTable{rightAligned: []bool{false, true}}
	t.add(fmt.Sprintf("on a repository of %d files, median of %d", wt.Files, wt.Runs), "")
	t.add("spawn without a worktree", benchMillis(wt.Spawn)+" ms")
	t.add("spawn with a worktree", benchMillis(wt.SpawnTree)+" ms")
	t.add("git worktree add alone", benchMillis(wt.GitAdd)+" ms")
	return t.write(w)
}

// printHistoryTable writes the master on a long history beside the same
// team with an empty log.
func printHistoryTable(w io.Writer, r *bench.Result) error {
	h := r.History
	t := &benchTable{rightAligned: []bool{false, true, true, false, false}}
	t.add(fmt.Sprintf("a master of %d agents on %d records and %d unread files", h.Agents, h.Records, h.InboxFiles), "empty log", "long history", "target", "")
	row := func(name, empty, long, checkRow string) { t.addChecked(r, checkRow, name, empty, long) }
	mib := func(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
	row("start, until it runs", benchMillis(h.Empty.Start)+" ms", benchMillis(h.Long.Start)+" ms", bench.RowHistoryRestart)
	row("a message posted a second later, until delivered", benchMillis(h.Empty.Delivery)+" ms", benchMillis(h.Long.Delivery)+" ms", "")
	row("memory (resident) then", mib(h.Empty.RSS), mib(h.Long.RSS), bench.RowHistoryRSS)
	row(fmt.Sprintf("memory at rest, after %s more", h.Window.Round(time.Second)), mib(h.Empty.RestRSS), mib(h.Long.RestRSS), "")
	row("CPU at rest", fmt.Sprintf("%.3f %%", h.Empty.Rest), fmt.Sprintf("%.3f %%", h.Long.Rest), bench.RowHistoryRest)
	return t.write(w)
}

// printSoakTable writes the soak's samples over time, then its checks.
func printSoakTable(w io.Writer, r *bench.Result) error {
	s := r.Soak
	t := &benchTable{rightAligned: []bool{true, true, true, true, true, true, true, true, false}}
	t.add("at", "logged", "master RSS", "fds", "CPU", "p50", "p99", "max", "")
	for _, sm := range s.Samples {
		killed := ""
		if sm.Killed {
			killed = "master killed"
		}
		t.add(sm.At.String(), fmt.Sprint(sm.Logged), fmt.Sprintf("%.1f MiB", float64(sm.RSS)/(1<<20)), fmt.Sprint(sm.FDs),
			bench.CPUText(sm.CPU), benchMillis(sm.P50)+" ms", benchMillis(sm.P99)+" ms", benchMillis(sm.Max)+" ms", killed)
	}
	if err := t.write(w); err != nil {
		return err
	}
	mark := func(ok bool) string {
		if ok {
			return "PASS"
		}
		return "MISS"
	}
	fmt.Fprintf(w, "\nsoak of %d agents for %s at %d msg/s (%.1f achieved): %d posted (%d to everyone, %d forbidden), %d helpers, %d rewrites of the rules, %d SIGKILLs\n",
		s.Agents, s.Duration, s.Rate, s.Achieved, s.Posted, s.Broadcasts, s.Forbidden, s.Helpers, s.Rewrites, s.Kills)
	c := &benchTable{rightAligned: []bool{false, true, false}}
	c.add("each message logged once", fmt.Sprintf("%d of %d (%d not logged, %d twice)", s.Logged, s.Posted, s.NotLogged, s.LoggedTwice), mark(s.NotLogged == 0 && s.LoggedTwice == 0))
	c.add("each copy delivered once", fmt.Sprintf("%d (%d missing, %d twice)", s.Copies, s.CopiesMissing, s.CopiesTwice), mark(s.CopiesMissing == 0 && s.CopiesTwice == 0))
	c.add("none forbidden delivered", fmt.Sprint(s.ForbiddenDelivered), mark(s.ForbiddenDelivered == 0))
	c.add("nothing left in an outbox", fmt.Sprint(s.LeftInOutbox), mark(s.LeftInOutbox == 0))
	c.add("longest time without a record", benchMillis(s.LongestGap)+" ms", "")
	return c.write(w)
}

// checkOf is a row's target and PASS or MISS, or nothing for a row
// without a target.
func checkOf(r *bench.Result, row string) (target, mark string) {
	c, ok := r.Check(row)
	switch {
	case !ok:
		return "", ""
	case c.Pass:
		return c.Target, "PASS"
	}
	return c.Target, "MISS"
}

// benchPrinter prints one table of a bench result.
type benchPrinter func(io.Writer, *bench.Result) error

// printTeamTable writes the team at rest beside its floors.
func printTeamTable(w io.Writer, r *bench.Result) error {
	tm := r.Team
	t := &benchTable{rightAligned: []bool{false, true, true, false, false}}
	t.add(fmt.Sprintf("a team of %d at rest in tmux, %s", tm.Agents, tm.Window.Round(time.Second)), "floor", "switchboard", "target", "")
	row := func(name, floor, got, checkRow string) { t.addChecked(r, checkRow, name, floor, got) }
	row("up -d (floor: the panes by tmux alone)", benchMillis(tm.UpFloor)+" ms", benchMillis(tm.Up)+" ms", "")
	row("CPU at rest, master + tmux server (floor: tmux alone)", fmt.Sprintf("%.3f %%", tm.TmuxRestBare), fmt.Sprintf("%.3f + %.3f %%", tm.MasterRest, tm.TmuxRest), bench.RowTeamRest)
	row("the same, no agent with hooks (floor: tmux alone)", fmt.Sprintf("%.3f %%", tm.TmuxRestBare), fmt.Sprintf("%.3f + %.3f %%", tm.HooklessMasterRest, tm.HooklessTmuxRest), bench.RowTeamRestHookless)
	row("master's memory (resident)", "", fmt.Sprintf("%.1f MiB", float64(tm.MasterRSS)/(1<<20)), "")
	row("notice to one idle agent (floor: send-keys)", benchMillis(tm.NoticeFloor)+" ms", benchMillis(tm.Notice)+" ms", bench.RowTeamNotice)
	if c := tm.Console; c != nil {
		row("the console (top) at rest beside the team", "", fmt.Sprintf("%.3f %%", c.Rest), bench.RowConsoleRest)
		row("a frame of top --once (floor: /bin/true)", benchMillis(c.FrameFloor)+" ms", benchMillis(c.Frame)+" ms", bench.RowConsoleFrame)
	}
	if ty := tm.Typing; ty != nil {
		row(fmt.Sprintf("typing at %d msg/s, master and its processes (before: a tmux process per command)", ty.Rate),
			fmt.Sprintf("%.2f %%", ty.MasterByProcess), fmt.Sprintf("%.2f %%", ty.Master), bench.RowTeamTyping)
		row("  the tmux server meanwhile", fmt.Sprintf("%.2f %%", ty.TmuxByProcess), fmt.Sprintf("%.2f %%", ty.Tmux), "")
		row("  notices typed, of messages posted", fmt.Sprintf("%d of %d", ty.TypedByProcess, ty.Posted), fmt.Sprintf("%d of %d", ty.Typed, ty.Posted), "")
	}
	return t.write(w)
}

// printBenchTable writes the floor and the master side by side, with each
// target and whether the master met it.
func printBenchTable(w io.Writer, r *bench.Result) error {
	master := r.Master
	if master == nil {
		master = &bench.Router{}
	}
	t := &benchTable{rightAligned: []bool{false, true, true, false, false}}
	t.add(fmt.Sprintf("routing, %d agents, %d msg/s for %s, burst %d", r.Agents, r.Rate, r.Duration, r.Burst), "floor", "master", "target", "")
	row := func(name, floor, master, checkRow string) { t.addChecked(r, checkRow, name, floor, master) }
	row("steady p50 / p99 / max (durable)", benchLatency(r.Floor.Durable.Steady), benchLatency(master.Durable.Steady), bench.RowSteadyDurable)
	row("steady p50 / p99 / max (no fsync)", benchLatency(r.Floor.NoFsync.Steady), benchLatency(master.NoFsync.Steady), bench.RowSteadyNoFsync)
	row("burst msg/s (durable)", benchThroughput(r.Floor.Durable.Burst), benchBurst(master.Durable.Burst, r.Floor.Durable.Burst), bench.RowBurstDurable)
	row("burst msg/s (no fsync)", benchThroughput(r.Floor.NoFsync.Burst), benchBurst(master.NoFsync.Burst, r.Floor.NoFsync.Burst), bench.RowBurstNoFsync)
	if r.IdleCPU != nil {
		row(fmt.Sprintf("master idle CPU over %s", r.IdleCPU.Window.Round(time.Second)), "", fmt.Sprintf("%.2f %% of a core", r.IdleCPU.Percent), bench.RowIdleCPU)
	}
	return t.write(w)
}

// printHookTable writes the hooks' wall times beside /bin/true's, with each
// target and whether it was met.
func printHookTable(w io.Writer, r *bench.Result) error {
	h := r.Hooks
	t := &benchTable{rightAligned: []bool{false, true, true, true, false, false}}
	t.add(fmt.Sprintf("hooks, %d unread (%d urgent), %d runs each", h.Unread, h.Urgent, h.Runs), "median", "p90", "over /bin/true", "target", "")
	row := func(name string, tm bench.Timing, over, checkRow string) {
		t.addChecked(r, checkRow, name, benchMillis(tm.P50)+" ms", benchMillis(tm.P90)+" ms", over)
	}
	row("/bin/true (process start-up)", h.True, "-", "")
	row("switchboard, nothing to do (hook claude, no agent)", h.NothingToDo, benchSigned(h.NothingToDo.OverTrue), "")
	row("status --format line", h.StatusLine, benchSigned(h.StatusLine.OverTrue), bench.RowStatusLine)
	row("hook claude (UserPromptSubmit), all new", h.PromptNew, benchSigned(h.PromptNew.OverTrue), bench.RowHookPromptNew)
	row("hook claude (UserPromptSubmit), all shown", h.PromptShown, benchSigned(h.PromptShown.OverTrue), bench.RowHookPromptShown)
	if err := t.write(w); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "status printed: %s\n", h.StatusOutput)
	return err
}

// benchSigned is a difference in milliseconds, with its sign: process
// start-up varies, and a command may be quicker than /bin/true's median.
func benchSigned(d time.Duration) string {
	if d < 0 {
		return "-" + benchMillis(-d) + " ms"
	}
	return "+" + benchMillis(d) + " ms"
}

// benchTable lines up columns of text, each left- or right-aligned.
type benchTable struct {
	rightAligned []bool
	rows         [][]string
}

func (t *benchTable) add(cells ...string) { t.rows = append(t.rows, cells) }

// addChecked adds a row of cells followed by the target of checkRow and
// whether it was met (nothing for a row without a target).
func (t *benchTable) addChecked(r *bench.Result, checkRow string, cells ...string) {
	target, mark := checkOf(r, checkRow)
	t.add(append(cells, target, mark)...)
}

func (t *benchTable) write(w io.Writer) error {
	widths := make([]int, len(t.rightAligned))
	for _, row := range t.rows {
		for i, cell := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	var b strings.Builder
	for _, row := range t.rows {
		var line strings.Builder
		for i, cell := range row {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell))
			if i > 0 {
				line.WriteString("   ")
			}
			if t.rightAligned[i] {
				line.WriteString(pad + cell)
			} else {
				line.WriteString(cell + pad)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func benchLatency(l bench.Latency) string {
	if l.Count == 0 {
		return "-"
	}
	s := fmt.Sprintf("%s/%s/%s ms", benchMillis(l.P50), benchMillis(l.P99), benchMillis(l.Max))
	return s + benchLost(l.Lost)
}

func benchThroughput(t bench.Throughput) string {
	if t.Count == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", t.PerSecond) + benchLost(t.Lost)
}

// benchBurst is a burst's messages per second with its share of the
// floor's, the figure its target is set on.
func benchBurst(t, floor bench.Throughput) string {
	if t.Count == 0 || floor.PerSecond <= 0 {
		return benchThroughput(t)
	}
	return fmt.Sprintf("%s (%.2f× floor)", benchThroughput(t), t.Share(floor))
}

func benchLost(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d lost)", n)
}

// benchMillis prints a duration in milliseconds with two significant digits
// below 10 ms.
func benchMillis(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case ms < 1:
		return fmt.Sprintf("%.2f", ms)
	case ms < 10:
		return fmt.Sprintf("%.1f", ms)
	default:
		return fmt.Sprintf("%.0f", ms)
	}
}
