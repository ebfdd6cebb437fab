package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"switchboard/internal/proctree"
	"switchboard/mailbox"
	"switchboard/master"
	"switchboard/profile"
	"switchboard/workspace"
)

// DefaultTypingRate is the messages a second posted to the team without
// hooks while the typing of their notices is measured.
const DefaultTypingRate = 15

// Typing is the CPU the notices cost: each agent without hooks, its
// program a typist that keeps what is typed to it, messages posted to them
// at Rate a second over the window. Master is the master with the processes
// it starts, Tmux the tmux server; ByProcess the same with a tmux process
// per command. Posted counts the messages, Typed the notices that reached
// the agents' programs.
type Typing struct {
	Rate            int     `json:"rate_per_second"`
	Master          float64 `json:"master_percent"`
	Tmux            float64 `json:"tmux_percent"`
	Posted          int     `json:"posted"`
	Typed           int     `json:"typed"`
	MasterByProcess float64 `json:"master_by_process_percent"`
	TmuxByProcess   float64 `json:"tmux_by_process_percent"`
	TypedByProcess  int     `json:"typed_by_process"`
}

// typing measures the notices' cost with the master's control connection,
// then with a tmux process per command, the team brought up afresh for
// each.
func (t *teamRun) typing(ctx context.Context) (*Typing, error) {
	res := &Typing{Rate: DefaultTypingRate}
	for _, byProcess := range []bool{false, true} {
		t.down()
		// Each round starts with empty mailboxes: a team brought up is
		// told of the mail waiting for it, which is not the load measured.
		if err := os.RemoveAll(mailbox.NewStore(t.root).Dir); err != nil {
			return nil, err
		}
		if err := os.RemoveAll(t.typingDir()); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(t.typingDir(), 0o755); err != nil {
			return nil, err
		}
		if err := t.write(profile.KindGeneric, t.typist); err != nil {
			return nil, err
		}
		t.env = nil
		if byProcess {
			// A tmux process per command: the way notices were typed
			// before the master's control connection to the session.
			t.env = []string{master.CommandsByProcessEnv + "=process"}
		}
		if out, err := t.switchboard(ctx, "up", "-d", "--no-console", "--socket", t.socket); err != nil {
			return nil, fmt.Errorf("up of the typists: %w\n%s", err, out)
		}
		if err := t.waitAtRest(ctx); err != nil {
			return nil, err
		}
		master, server, posted, err := t.typeTo(ctx, res.Rate)
		if err != nil {
			return nil, err
		}
		typed, err := t.typed()
		if err != nil {
			return nil, err
		}
		if byProcess {
			res.MasterByProcess, res.TmuxByProcess, res.TypedByProcess = master, server, typed
		} else {
			res.Master, res.Tmux, res.Posted, res.Typed = master, server, posted, typed
		}
	}
	t.env = nil
	return res, nil
}

// typeTo posts rate messages a second over the window, each from one agent
// to the next, and measures the CPU of the master's family and of the tmux
// server meanwhile.
func (t *teamRun) typeTo(ctx context.Context, rate int) (master, server float64, posted int, err error) {
	mpid, ok := workspace.New(t.root).MasterRunning()
	if !ok {
		return 0, 0, 0, fmt.Errorf("the master is not running")
	}
	s, err := t.session()
	if err != nil {
		return 0, 0, 0, err
	}
	store := mailbox.NewStore(t.root)
	postCtx, stop := context.WithCancel(ctx)
	postErr := make(chan error, 1)
	go func() {
		tick := time.NewTicker(time.Second / time.Duration(rate))
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-postCtx.Done():
				postErr <- nil
				return
			case <-tick.C:
			}
			from, to := t.name(i%t.cfg.Agents+1), t.name((i+1)%t.cfg.Agents+1)
			msg := &mailbox.Message{From: from, To: []string{to}, Title: "typing " + strconv.Itoa(i), Content: benchContent}
			msg.Normalize(time.Now())
			if _, err := store.Post(from, msg); err != nil {
				postErr <- err
				return
			}
			posted++
		}
	}()
	cpu, err := cpuPercentOf(ctx, t.cfg.Idle, func() (time.Duration, error) { return familyCPUTime(mpid) },
		func() (time.Duration, error) { return processCPUTime(s.ServerPID) })
	stop()
	if perr := <-postErr; err == nil {
		err = perr
	}
	if err != nil {
		return 0, 0, 0, err
	}
	return cpu[0], cpu[1], posted, nil
}

// typingDir holds what each typist was typed, a file per agent.
func (t *teamRun) typingDir() string { return filepath.Join(t.root, "typed") }

// typist is the command of an agent that keeps what is typed to it, in
// its file of typingDir.
func (t *teamRun) typist(agent string) string {
	return "sh, -c, " + strconv.Quote("exec cat >> "+filepath.Join(t.typingDir(), agent))
}

// typed counts the lines the typists were typed.
func (t *teamRun) typed() (int, error) {
	entries, err := os.ReadDir(t.typingDir())
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		path := filepath.Join(t.typingDir(), e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			return 0, err
		}
		n += strings.Count(string(data), "\n")
	}
	return n, nil
}

// familyCPUTime is the CPU time a process and its children have used: the
// children it waited for, and those still running.
func familyCPUTime(pid int) (time.Duration, error) {
	total, err := processCPUTime(pid)
	if err != nil {
		return 0, err
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if parent, ok := proctree.Parent(child); err != nil || !ok || parent != pid {
			continue
		}
		if used, err := processCPUTime(child); err == nil { // it may have ended meanwhile
			total += used
		}
	}
	return total, nil
}
