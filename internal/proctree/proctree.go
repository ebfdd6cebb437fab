package proctree

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"switchboard/internal/watch"
)

// Session returns the processes of the session led by leader, the leader
// first when it still runs. Where /proc is missing it returns the leader
// alone.
func Session(leader int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		if Alive(leader) {
			return []int{leader}
		}
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readStat(pid); ok && st.session == leader && st.state != 'Z' {
			if pid == leader {
				pids = append([]int{pid}, pids...)
			} else {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

type stat struct {
	state   byte
	parent  int
	session int
}

// readStat reads a process's state and session from /proc/PID/stat. The
// command name, in parentheses, may hold spaces and parentheses itself: the
// fields start after the last ")".
func readStat(pid int) (stat, bool) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return stat{}, false
	}
	end := strings.LastIndexByte(string(data), ')')
	if end < 0 {
		return stat{}, false
	}
	// state ppid pgrp session ...
	f := strings.Fields(string(data[end+1:]))
	if len(f) < 4 || len(f[0]) != 1 {
		return stat{}, false
	}
	parent, err1 := strconv.Atoi(f[1])
	session, err2 := strconv.Atoi(f[3])
	if err1 != nil || err2 != nil {
		return stat{}, false
	}
	return stat{state: f[0][0], parent: parent, session: session}, true
}

// Parent is a process's parent; false when the process cannot be read.
func Parent(pid int) (int, bool) {
	st, ok := readStat(pid)
	return st.parent, ok
}

// Alive reports whether the process runs: it exists and is not a zombie
// waiting for a parent to collect it.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if st, ok := readStat(pid); ok {
		return st.state != 'Z'
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// End stops every process of the sessions led by leaders (the leaders may
// be gone already; their sessions stay): SIGHUP, as a terminal that goes
// away sends; then SIGTERM to those still running after grace; then SIGKILL
// to those still running after another. The sessions are listed again
// before each signal, so a process id used again meanwhile is not hit, and
// the caller's own session is left alone: it may be a pane of the team. It
// returns once all are gone or ctx is done, with the processes that still
// ran.
func End(ctx context.Context, leaders []int, grace time.Duration) []int {
	own := -1
	if st, ok := readStat(os.Getpid()); ok {
		own = st.session
	}
	list := func() []int {
		var pids []int
		for _, leader := range leaders {
			if leader != own {
				pids = append(pids, Session(leader)...)
			}
		}
		return pids
	}
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGKILL} {
		for _, pid := range list() {
			_ = syscall.Kill(pid, sig) // gone already: nothing to do
		}
		if watch.Until(ctx, 20*time.Millisecond, grace, func() bool { return len(list()) == 0 }) {
			return nil
		}
	}
	return list()
}

// Ancestors is pid and its parents, nearest first, up to the first process
// (or as far as /proc tells).
func Ancestors(pid int) []int {
	chain := []int{pid}
	for len(chain) < 128 {
		st, ok := readStat(pid)
		if !ok || st.parent <= 1 || st.parent == pid {
			break
		}
		pid = st.parent
		chain = append(chain, pid)
	}
	return chain
}
