package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"switchboard/bulletin"
	"switchboard/conversation"
	"switchboard/mailbox"
	"switchboard/workspace"
)

// HookConfig says how the hooks' start-to-exit time is measured. The zero
// value of a field takes its default.
type HookConfig struct {
	// Binary is the switchboard executable whose `status` and `hook`
	// commands are timed. It is required.
	Binary string
	// Unread is how many delivered messages wait in the agent's inbox.
	Unread int
	// Runs is how many times each command is timed, after one warm-up run.
	Runs int
	// Dir is the folder the temporary workspace is made in; empty is the
	// system's temporary folder. Listing a folder of thousands of files
	// costs differently between filesystems: measure where the team lives.
	Dir string
	// Progress, when set, receives a line as each stage ends.
	Progress io.Writer
}

// Defaults of HookConfig, the numbers of the targets.
const (
	DefaultHookUnread = 10_000
	DefaultHookRuns   = 50
)

// QuickHooks is a HookConfig small enough for a first look: about a second.
func QuickHooks() HookConfig {
	return HookConfig{Unread: 1000, Runs: 10}
}

// maxHookUnread keeps the filling of the inbox under a minute.
const maxHookUnread = 1_000_000

// hookAgent receives the messages and is the agent the hooks run for;
// hookSender sends them. Both are in the default team `switchboard init`
// writes, which status needs: it loads the rules and checks the agent.
const (
	hookAgent  = "developer_agent"
	hookSender = "reviewer_agent"
)

// hookEvent is what Claude Code sends the hook before a prompt; the fields
// it sends besides are ignored by the hook.
const hookEvent = `{"hook_event_name":"UserPromptSubmit","prompt":"go on","session_id":"bench"}` + "\n"

// runTimeout bounds one timed command: a hook that takes seconds is broken,
// and must not hang the bench.
const runTimeout = 10 * time.Second

// HookResult is the wall time, from fork/exec to exit, of the commands the
// hooks run, beside that of /bin/true measured in the same run: the part of
// each figure that is only the cost of starting a process.
type HookResult struct {
	Unread int `json:"unread"`
	Urgent int `json:"urgent"`
	Runs   int `json:"runs"`
	// True is /bin/true, the baseline.
	True Timing `json:"true"`
	// NothingToDo is `switchboard hook claude` outside a team (no agent
	// named): it prints {} without reading its input or touching a file,
	// the fixed cost of starting this binary and its command tree.
	NothingToDo Timing `json:"nothing_to_do"`
	// StatusLine is `status --format line` for the agent.
	StatusLine Timing `json:"status_line"`
	// PromptNew is `hook claude` answering UserPromptSubmit with every
	// unread message new to the agent, its first prompt after they arrived:
	// the marks of what it was shown are removed before each run, so every
	// run lists the newest messages and writes the marks again.
	PromptNew Timing `json:"hook_prompt_new"`
	// PromptShown is the same with every message already shown, the usual
	// case: the inbox is listed and compared with the marks, and no message
	// is opened.
	PromptShown Timing `json:"hook_prompt_shown"`
	// StatusOutput is what the status command printed, for the reader to
	// see what was measured.
	StatusOutput string `json:"status_output"`
}

// Timing is the wall time of one command over the runs.
type Timing struct {
	// Command is the command line, with the workspace folder as WS.
	Command string        `json:"command"`
	P50     time.Duration `json:"p50_ns"`
	P90     time.Duration `json:"p90_ns"`
	Max     time.Duration `json:"max_ns"`
	// OverTrue is P50 less the P50 of /bin/true: the cost of the command
	// beyond starting a process.
	OverTrue time.Duration `json:"over_true_ns"`
}

// AddHooks puts the hook measurements into the result, and their checks
// with those of routing.
func (r *Result) AddHooks(h *HookResult) {
	r.Hooks = h
	r.check()
}

// ErrHookOutput is wrapped when a timed command ran but did not print what
// it should have: a figure for a command that did not do its work would
// mislead.
var ErrHookOutput = errors.New("bench: unexpected output")

func (c HookConfig) withDefaults() (HookConfig, error) {
	if c.Unread == 0 {
		c.Unread = DefaultHookUnread
	}
	if c.Runs == 0 {
		c.Runs = DefaultHookRuns
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
	if c.Binary == "" {
		return c, fmt.Errorf("%w: no switchboard binary to time the hooks of", ErrConfig)
	}
	return c, c.check()
}

// check checks the numbers a person gives, as given: a zero is no default.
func (c HookConfig) check() error {
	switch {
	case c.Unread < 1:
		return want("hooks unread", "must be at least 1 message")
	case c.Unread > maxHookUnread:
		return want("hooks unread", "must be at most %d messages", maxHookUnread)
	case c.Runs < 1:
		return want("hooks runs", "must be at least 1")
	}
	return nil
}

// RunHooks makes a workspace of the default team in which developer_agent
// has cfg.Unread unread messages, then times, cfg.Runs times each, /bin/true
// and the switchboard commands of HookResult. The commands take turns, one
// run of each in a round, and each round starts with the next command, so
// that a drift of the machine's speed, and whatever the previous command
// left in the caches, fall on all of them alike. One warm-up run of each
// comes first, so that the binaries are in the page cache.
//
// Every run's output is checked; a command that fails, writes to standard
// error or prints the wrong thing fails the bench. The workspace is removed
// at the end.
func RunHooks(ctx context.Context, cfg HookConfig) (res *HookResult, err error) {
	cfg, err = cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(cfg.Dir, "switchboard-bench-hooks-")
	if err != nil {
		return nil, fmt.Errorf("create hook bench folder: %w", err)
	}
	defer func() {
		if rmErr := os.RemoveAll(dir); rmErr != nil {
			err = errors.Join(err, fmt.Errorf("remove hook bench folder: %w", rmErr))
		}
		if err != nil {
			res = nil
		}
	}()
	h, err := newHookBench(ctx, cfg, dir)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, h.close()) }()
	return h.measure(ctx)
}

// hookBench is the workspace and the commands timed on it.
type hookBench struct {
	cfg    HookConfig
	root   string
	store  *mailbox.Store
	urgent int
	newest string // the id of the newest message
	// stdin holds the hook event, given to every command alike; out and
	// errOut catch their output. They are files, not pipes, so that no
	// goroutine of the bench copies output while a command runs.
	stdin, out, errOut *os.File
	env                []string
	cmds               []*hookCommand
}

// hookCommand is one command timed, and how its output is checked.
type hookCommand struct {
	label   string
	path    string
	args    []string
	display string
	before  func() error // outside the timing
	check   func(stdout string) error
	lastOut string
	times   []time.Duration
}

func newHookBench(ctx context.Context, cfg HookConfig, dir string) (h *hookBench, err error) {
	h = &hookBench{cfg: cfg, root: filepath.Join(dir, "team")}
	defer func() {
		if err != nil {
			err = errors.Join(err, h.close())
		}
	}()
	// Children get the bench's environment without a team of their own:
	// an agent named there would change what the commands do.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SWITCHBOARD_ROOT=") && !strings.HasPrefix(kv, "SWITCHBOARD_AGENT=") {
			h.env = append(h.env, kv)
		}
	}
	if h.stdin, err = os.Create(filepath.Join(dir, "stdin")); err != nil {
		return h, fmt.Errorf("hook bench: %w", err)
	}
	if _, err = h.stdin.WriteString(hookEvent); err != nil {
		return h, fmt.Errorf("hook bench: %w", err)
	}
	// Appending, so that each command writes from the start of the file
	// truncated before it, whatever the offset the last one left.
	output := func(name string) (*os.File, error) {
		return os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	}
	if h.out, err = output("stdout"); err != nil {
		return h, fmt.Errorf("hook bench: %w", err)
	}
	if h.errOut, err = output("stderr"); err != nil {
		return h, fmt.Errorf("hook bench: %w", err)
	}
	// The team is the one `switchboard init` writes, by the binary timed:
	// status loads its rules on every call.
	if _, err := h.run(ctx, cfg.Binary, "--root", h.root, "init"); err != nil {
		return h, fmt.Errorf("hook bench: switchboard init: %w", err)
	}
	start := time.Now()
	if err := h.fill(); err != nil {
		return h, err
	}
	fmt.Fprintf(cfg.Progress, "hooks: %d unread messages (%d urgent) delivered to %s in %s\n",
		cfg.Unread, h.urgent, hookAgent, round(time.Since(start)))
	h.commands()
	return h, nil
}

// fill logs and delivers cfg.Unread messages to the agent, as the master
// would but without fsync, so that the log vouches for each, and writes the
// bulletin as the master keeps it: status reads it on every call.
func (h *hookBench) fill() error {
	h.store = workspace.New(h.root).Store
	h.store.Durable = false
	for _, agent := range []string{hookAgent, hookSender} {
		if err := h.store.Ensure(agent); err != nil {
			return fmt.Errorf("hook bench: %w", err)
		}
	}
	log, err := mailbox.OpenLogWriter(h.store.LogPath(), false)
	if err != nil {
		return fmt.Errorf("hook bench: %w", err)
	}
	defer log.Close()
	// Delivered one millisecond apart, ending now, so that the names sort
	// in the order of delivery, as they do in a real inbox.
	first := time.Now().UTC().Add(-time.Duration(h.cfg.Unread) * time.Millisecond)
	for i := range h.cfg.Unread {
		m := &mailbox.Message{
			ID:          mailbox.NewID(),
			From:        hookSender,
			To:          []string{hookAgent},
			Title:       fmt.Sprintf("hook benchmark message %d", i+1),
			Priority:    mailbox.PriorityNormal,
			Content:     benchContent,
			DeliveredAt: first.Add(time.Duration(i) * time.Millisecond),
		}
		// One in twenty urgent: the status line counts them apart.
		if i%20 == 19 {
			m.Priority = mailbox.PriorityUrgent
			h.urgent++
		}
		m.Timestamp = m.DeliveredAt.Add(-time.Millisecond)
		m.Normalize(m.Timestamp)
		if err := m.Validate(); err != nil {
			return fmt.Errorf("hook bench: message %d: %w", i+1, err)
		}
		posted := *m
		posted.Seq, posted.DeliveredAt = 0, time.Time{}
		rec := mailbox.Record{Time: m.DeliveredAt, Status: mailbox.StatusDelivered, Delivered: m.To, Hash: mailbox.Fingerprint(&posted), Message: &posted}
		if rec, err = log.AppendUnsynced(rec); err != nil {
			return fmt.Errorf("hook bench: %w", err)
		}
		m.Seq = rec.Seq
		delivered, err := h.store.DeliverUnsynced(hookAgent, m)
		if err != nil {
			return fmt.Errorf("hook bench: %w", err)
		}
		if !delivered {
			return fmt.Errorf("hook bench: message %s was not delivered: its name is taken", m.ID)
		}
		h.newest = m.ID
	}
	err = bulletin.Of(workspace.New(h.root)).Update(func(b *bulletin.Bulletin) error {
		b.Agents = map[string]bulletin.AgentSummary{
			hookAgent:  {State: conversation.Busy, Unread: h.cfg.Unread, Urgent: h.urgent},
			hookSender: {State: conversation.Idle},
		}
		b.ActiveAgents = []string{hookAgent, hookSender}
		return nil
	})
	if err != nil {
		return fmt.Errorf("hook bench: %w", err)
	}
	return nil
}

// commands makes the commands to time, in the order of HookResult.
func (h *hookBench) commands() {
	bin := h.cfg.Binary
	team := []string{"--root", h.root, "--as", hookAgent}
	newCount := fmt.Sprintf(" %d new", h.cfg.Unread)
	trueBin := "/bin/true"
	if _, err := os.Stat(trueBin); err != nil {
		if found, err := exec.LookPath("true"); err == nil {
			trueBin = found
		}
	}
	h.cmds = []*hookCommand{
		{label: "/bin/true", path: trueBin},
		{
			label: "nothing to do", path: bin, args: []string{"hook", "claude"},
			check: func(out string) error { return expect(out == "{}\n", "{}", out) },
		},
		{
			label: "status --format line", path: bin, args: append(slices.Clone(team), "status", "--format", "line"),
			check: func(out string) error {
				return expect(strings.Contains(" "+out, newCount), "a line saying"+newCount, out)
			},
		},
		{
			label: "hook claude, all new", path: bin, args: append(slices.Clone(team), "hook", "claude"),
			before: func() error {
				if err := conversation.Of(h.store).ResetShown(hookAgent); err != nil {
					return fmt.Errorf("hook bench: forget what the agent was shown: %w", err)
				}
				return nil
			},
			check: func(out string) error { return h.checkHook(out, newCount, true) },
		},
		{
			label: "hook claude, all shown", path: bin, args: append(slices.Clone(team), "hook", "claude"),
			check: func(out string) error { return h.checkHook(out, newCount, false) },
		},
	}
	for _, c := range h.cmds {
		c.display = strings.ReplaceAll(strings.Join(append([]string{filepath.Base(c.path)}, c.args...), " "), h.root, "WS")
		if c.path == trueBin {
			c.display = trueBin
		}
	}
}

// checkHook checks a UserPromptSubmit answer: JSON whose context has the
// status box and, when listed, the newest message.
func (h *hookBench) checkHook(out, newCount string, listed bool) error {
	var answer struct {
		Specific struct {
			Event   string `json:"hookEventName"`
			Context string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &answer); err != nil {
		return fmt.Errorf("%w: the hook's answer is not JSON (%w): %q", ErrHookOutput, err, out)
	}
	ctx := answer.Specific.Context
	if answer.Specific.Event != "UserPromptSubmit" || !strings.Contains(ctx, newCount) {
		return fmt.Errorf("%w: the hook's answer has no status box saying%s: %q", ErrHookOutput, newCount, out)
	}
	if has := strings.Contains(ctx, h.newest); has != listed {
		want := "list"
		if !listed {
			want = "no longer list"
		}
		return fmt.Errorf("%w: the hook's answer does not %s the newest message, %s: %q", ErrHookOutput, want, h.newest, out)
	}
	return nil
}

func expect(ok bool, want, got string) error {
	if ok {
		return nil
	}
	return fmt.Errorf("%w: want %s, got %q", ErrHookOutput, want, got)
}

// measure runs the warm-up, then the rounds, and summarizes.
func (h *hookBench) measure(ctx context.Context) (*HookResult, error) {
	for _, c := range h.cmds {
		if _, err := h.time(ctx, c); err != nil {
			return nil, err
		}
	}
	for round := range h.cfg.Runs {
		for i := range h.cmds {
			c := h.cmds[(round+i)%len(h.cmds)]
			d, err := h.time(ctx, c)
			if err != nil {
				return nil, err
			}
			c.times = append(c.times, d)
		}
	}
	res := &HookResult{Unread: h.cfg.Unread, Urgent: h.urgent, Runs: h.cfg.Runs}
	timings := []*Timing{&res.True, &res.NothingToDo, &res.StatusLine, &res.PromptNew, &res.PromptShown}
	for i, c := range h.cmds {
		sorted := slices.Clone(c.times)
		slices.Sort(sorted)
		*timings[i] = Timing{Command: c.display, P50: percentile(sorted, 0.50), P90: percentile(sorted, 0.90), Max: sorted[len(sorted)-1]}
	}
	for _, t := range timings {
		t.OverTrue = t.P50 - res.True.P50
	}
	for i, c := range h.cmds {
		t := timings[i]
		fmt.Fprintf(h.cfg.Progress, "hooks: %s, %d runs: median %s, p90 %s, max %s\n", c.label, len(c.times), round(t.P50), round(t.P90), round(t.Max))
	}
	// Every run was checked; the last output of status is kept for the
	// reader, to show what was measured.
	res.StatusOutput = strings.TrimRight(h.cmds[2].lastOut, "\n")
	return res, nil
}

// time runs one command, checks its output and returns its wall time from
// just before the fork to just after the exit was reaped.
func (h *hookBench) time(ctx context.Context, c *hookCommand) (time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if c.before != nil {
		if err := c.before(); err != nil {
			return 0, err
		}
	}
	out, took, err := h.runOnce(ctx, c.path, c.args...)
	if err != nil {
		return 0, fmt.Errorf("hook bench: %s: %w", c.display, err)
	}
	c.lastOut = out
	if c.check != nil {
		if err := c.check(out); err != nil {
			return 0, fmt.Errorf("hook bench: %s: %w", c.display, err)
		}
	}
	return took, nil
}

// run runs a command untimed, for the set-up.
func (h *hookBench) run(ctx context.Context, path string, args ...string) (string, error) {
	out, _, err := h.runOnce(ctx, path, args...)
	return out, err
}

// runOnce runs a command with the hook event on its standard input and
// returns what it printed. Everything but the start and the wait is done
// outside the timing.
func (h *hookBench) runOnce(ctx context.Context, path string, args ...string) (string, time.Duration, error) {
	for _, f := range []*os.File{h.out, h.errOut} {
		if err := f.Truncate(0); err != nil {
			return "", 0, err
		}
	}
	if _, err := h.stdin.Seek(0, io.SeekStart); err != nil {
		return "", 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = h.env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = h.stdin, h.out, h.errOut
	start := time.Now()
	err := cmd.Start()
	if err == nil {
		err = cmd.Wait()
	}
	took := time.Since(start)
	stdout, readErr := os.ReadFile(h.out.Name())
	stderr, _ := os.ReadFile(h.errOut.Name())
	stderr = bytes.TrimSpace(stderr)
	switch {
	case ctx.Err() != nil && err != nil:
		return "", 0, fmt.Errorf("stopped before it ended (a run may take %s): %w", runTimeout, ctx.Err())
	case err != nil && len(stderr) > 0:
		return "", 0, fmt.Errorf("%w: %s", err, stderr)
	case err != nil:
		return "", 0, err
	case readErr != nil:
		return "", 0, readErr
	case len(stderr) > 0:
		// The hook reports its errors there and exits 0, so as never to
		// fail the client: a silent failure would be timed as a success.
		return "", 0, fmt.Errorf("%w: it wrote to standard error: %s", ErrHookOutput, stderr)
	}
	return string(stdout), took, nil
}

// close closes the bench's files; the caller removes the folder.
func (h *hookBench) close() error {
	var errs []error
	for _, f := range []*os.File{h.stdin, h.out, h.errOut} {
		if f != nil {
			errs = append(errs, f.Close())
		}
	}
	h.stdin, h.out, h.errOut = nil, nil, nil
	return errors.Join(errs...)
}
