package agents

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"switchboard/internal/watch"
	"switchboard/workspace"
)

// ErrUpBusy is returned when another process has been bringing the team up
// for longer than LockUp waits for it.
var ErrUpBusy = errors.New("another switchboard up is still bringing the team up")

// UpLock is held by the one process at a time that brings the team up in
// tmux, or starts its master again: two up at once bring up one team, and
// the second finds it up once the first is done.
type UpLock struct{ file *os.File }

// upLockPoll is how often a waiting LockUp tries the lock again.
const upLockPoll = 20 * time.Millisecond

// LockUp takes the workspace's up lock (a flock, which the kernel drops
// when its holder dies). When another process holds it, waiting is called
// once with that process's pid, and LockUp waits for it to let go, for at
// most wait: ErrUpBusy after that.
func LockUp(ctx context.Context, ws *workspace.Workspace, wait time.Duration, waiting func(pid int)) (*UpLock, error) {
	path := ws.UpLock()
	if err := os.MkdirAll(ws.Store.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("lock the team for up: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock the team for up: %w", err)
	}
	try := func() bool {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		return !errors.Is(err, syscall.EWOULDBLOCK)
	}
	if !try() {
		if waiting != nil {
			waiting(holder(f))
		}
		if !watch.Until(ctx, upLockPoll, wait, try) {
			pid := holder(f)
			f.Close()
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("%w (pid %d, for over %s)", ErrUpBusy, pid, wait)
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock the team for up: %w", err)
	}
	// The pid is for the next one to wait: it says whom it waits for.
	if _, err := f.WriteAt([]byte(fmt.Sprintf("%-15d\n", os.Getpid())), 0); err == nil {
		f.Truncate(16)
	}
	return &UpLock{file: f}, nil
}

// Release lets go of the lock; it may be called again, and on nil.
func (l *UpLock) Release() {
	if l == nil || l.file == nil {
		return
	}
	l.file.Truncate(0) // no pid: no one holds it
	l.file.Close()     // closing drops the flock
	l.file = nil
}

// holder is the pid the lock's holder wrote, or 0.
func holder(f *os.File) int {
	buf := make([]byte, 32)
	n, _ := f.ReadAt(buf, 0)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	return pid
}

// UpUnderWay reports whether a process is bringing the team up (or starting
// its master again) now: it holds the up lock. The master waits for it to be
// done before it connects to tmux as a control client, since tmux 3.3a can
// crash when a window is made while a control client is still connecting.
func UpUnderWay(ws *workspace.Workspace) bool {
	f, err := os.Open(ws.UpLock())
	if err != nil {
		return false // never taken: no lock file
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}
