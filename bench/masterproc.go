package bench

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// masterProcess is the real master, `switchboard master`, run as a child
// process on a bench workspace.
type masterProcess struct {
	cmd  *exec.Cmd
	log  *os.File      // the master's standard error, outside the workspace
	done chan struct{} // closed when the process has ended
	err  error         // from Wait, once done is closed
}

// stopGrace bounds the wait for the master to stop after SIGTERM.
const stopGrace = 5 * time.Second

// startMaster runs `<bin> master --root <root> [more...] [--no-fsync]` with
// SWITCHBOARD_ROOT and SWITCHBOARD_AGENT unset, and env (KEY=VALUE) set. Its log goes to a file, not
// a pipe, so that reading it costs the bench nothing, and not into the
// workspace, whose folder the master watches.
func startMaster(bin, root string, durable bool, env []string, more ...string) (*masterProcess, error) {
	args := append([]string{"master", "--root", root}, more...)
	if !durable {
		args = append(args, "--no-fsync")
	}
	cmd := exec.Command(bin, args...)
	// A bench killed outright must not leave a master behind on a workspace
	// no one will remove.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SWITCHBOARD_ROOT=") && !strings.HasPrefix(kv, "SWITCHBOARD_AGENT=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	log, err := os.CreateTemp("", "switchboard-bench-master-*.log")
	if err != nil {
		return nil, fmt.Errorf("start master: %w", err)
	}
	p := &masterProcess{cmd: cmd, log: log, done: make(chan struct{})}
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		p.removeLog()
		return nil, fmt.Errorf("start master %s: %w", bin, err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

func (p *masterProcess) pid() int { return p.cmd.Process.Pid }

// exited is closed when the master has ended, on its own or stopped.
func (p *masterProcess) exited() <-chan struct{} { return p.done }

// failure describes a master that ended on its own.
func (p *masterProcess) failure() error {
	return fmt.Errorf("master (pid %d) ended: %v; its log:\n%s", p.pid(), p.err, p.logTail())
}

// logTail is the end of the master's log, for error messages.
func (p *masterProcess) logTail() string {
	const limit = 4 << 10
	data, _ := os.ReadFile(p.log.Name())
	if len(data) > limit {
		data = data[len(data)-limit:]
	}
	return strings.TrimRight(string(data), "\n")
}

func (p *masterProcess) removeLog() {
	p.log.Close()
	os.Remove(p.log.Name())
}

// stop sends SIGTERM and waits for the master to end, killing it after
// stopGrace, and removes its log. A master that does not exit cleanly is an
// error.
func (p *masterProcess) stop() error {
	defer p.removeLog()
	select {
	case <-p.done:
		return p.failure()
	default:
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("stop master (pid %d): %w", p.pid(), err)
	}
	timer := time.NewTimer(stopGrace)
	defer timer.Stop()
	select {
	case <-p.done:
	case <-timer.C:
		p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("master (pid %d) did not stop within %s of SIGTERM and was killed; its log:\n%s", p.pid(), stopGrace, p.logTail())
	}
	if p.err != nil {
		return fmt.Errorf("master (pid %d) stopped with %v; its log:\n%s", p.pid(), p.err, p.logTail())
	}
	return nil
}

// clockTick is USER_HZ, the unit of utime and stime in /proc: 100 on every
// Linux platform Go supports.
const clockTick = 10 * time.Millisecond

// cpuTime is the CPU time the master has used so far, with its children's.
func (p *masterProcess) cpuTime() (time.Duration, error) {
	return processCPUTime(p.pid())
}

// processCPUTime reads from /proc/<pid>/stat the CPU time a process has
// used so far, user and system, with that of the children it waited for.
func processCPUTime(pid int) (time.Duration, error) {
	st, err := readProcStat(pid)
	return st.cpu, err
}

// procStat is what /proc/<pid>/stat tells of a process: its parent, the
// CPU time it used so far with that of the children it waited for, and
// the latter alone.
type procStat struct {
	parent int
	cpu    time.Duration
	waited time.Duration
}

func readProcStat(pid int) (procStat, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, fmt.Errorf("read cpu time of pid %d: %w", pid, err)
	}
	// The command name, field 2, is in parentheses and may hold spaces;
	// the fields after it count from field 3 (state), 4 (ppid) on.
	end := bytes.LastIndexByte(data, ')')
	if end < 0 {
		return procStat{}, fmt.Errorf("read cpu time of pid %d: unexpected /proc/%d/stat", pid, pid)
	}
	fields := strings.Fields(string(data[end+1:]))
	if len(fields) < 15 {
		return procStat{}, fmt.Errorf("read cpu time of pid %d: /proc/%d/stat has %d fields", pid, pid, len(fields)+2)
	}
	parent, err := strconv.Atoi(fields[1])
	if err != nil {
		return procStat{}, fmt.Errorf("read cpu time of pid %d: %w", pid, err)
	}
	// utime, stime, cutime and cstime: the process's own time and that of
	// the children it has waited for (a master's tmux calls).
	var ticks [4]int64
	for i, f := range fields[11:15] { // fields 14 to 17
		if ticks[i], err = strconv.ParseInt(f, 10, 64); err != nil {
			return procStat{}, fmt.Errorf("read cpu time of pid %d: %w", pid, err)
		}
	}
	waited := time.Duration(ticks[2]+ticks[3]) * clockTick
	return procStat{parent: parent, cpu: time.Duration(ticks[0]+ticks[1])*clockTick + waited, waited: waited}, nil
}
