package master

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"switchboard/watch"
	"switchboard/workspace"
)

// ErrRunning is returned when another master holds the workspace.
var ErrRunning = errors.New("master already running")

// lock is the flock a running master holds on mailboxes/.master.lock.
type lock struct{ file *os.File }

// acquireLock takes the workspace lock and writes this process's pid into
// it. Probes by Running hold the lock for microseconds, so a few quick
// retries tell them apart from a running master.
func acquireLock(path string) (*lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open master lock: %w", err)
	}
	for attempt := 0; ; attempt++ {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || attempt == 20 {
			pid := readPid(f)
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, fmt.Errorf("%w (pid %d)", ErrRunning, pid)
			}
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	// The pid is written over the last one, padded to the same length, so
	// that a full disk, which has no block to give a truncated file, still
	// lets the master start.
	pid := fmt.Sprintf("%-*d\n", pidWidth-1, os.Getpid())
	if _, err := f.WriteAt([]byte(pid), 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("write master lock: %w", err)
	}
	if err := f.Truncate(pidWidth); err != nil {
		f.Close()
		return nil, fmt.Errorf("write master lock: %w", err)
	}
	return &lock{file: f}, nil
}

// pidWidth is the length of the lock file: a pid padded with spaces.
const pidWidth = 16

// release lets go of the workspace. The pid stays in the file, whose
// block the next master reuses; only the flock tells that one runs.
func (l *lock) release() {
	l.file.Close() // closing drops the flock
}

func readPid(f *os.File) int {
	buf := make([]byte, 32)
	n, _ := f.ReadAt(buf, 0)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	return pid
}

// Running reports whether a master holds the workspace, and its pid.
func Running(ws *workspace.Workspace) (pid int, running bool) {
	f, err := os.Open(ws.MasterLock())
	if err != nil {
		return 0, false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return readPid(f), true
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return 0, false
}

// ErrStillRunning is returned by Stop when the master outlived its time.
var ErrStillRunning = errors.New("the master did not stop")

// Stop asks the workspace's master to stop (SIGTERM) and waits up to limit
// for it to let go of the workspace. It returns the pid it stopped, 0 when
// none ran.
func Stop(ctx context.Context, ws *workspace.Workspace, limit time.Duration) (int, error) {
	pid, running := Running(ws)
	if !running {
		return 0, nil
	}
	if pid <= 0 {
		return 0, fmt.Errorf("a master holds %s but its pid is not in it", ws.MasterLock())
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return pid, fmt.Errorf("stop the master (pid %d): %w", pid, err)
	}
	gone := func() bool { _, still := Running(ws); return !still }
	if !watch.Until(ctx, 20*time.Millisecond, limit, gone) {
		if ctx.Err() != nil {
			return pid, ctx.Err()
		}
		return pid, fmt.Errorf("%w: pid %d within %s of SIGTERM", ErrStillRunning, pid, limit)
	}
	return pid, nil
}
