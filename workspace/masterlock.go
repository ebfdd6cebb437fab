package workspace

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
)

// ErrMasterRunning is returned when another master holds the workspace.
var ErrMasterRunning = errors.New("master already running")

// MasterLock is the flock a running master holds on the workspace's lock
// file, with its pid written in it.
type MasterLock struct{ file *os.File }

// lockPidWidth is the length of the lock file: a pid padded with spaces.
const lockPidWidth = 16

// LockMaster takes the workspace for this process, the master, and writes
// its pid into the lock. Probes by MasterRunning hold the lock for
// microseconds, so a few quick retries tell them apart from a running
// master, which is ErrMasterRunning.
func (w *Workspace) LockMaster() (*MasterLock, error) {
	path := w.MasterLock()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open master lock: %w", err)
	}
	watch.Until(context.Background(), 5*time.Millisecond, 100*time.Millisecond, func() bool {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		return !errors.Is(err, syscall.EWOULDBLOCK)
	})
	if err != nil {
		pid := readLockPid(f)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w (pid %d)", ErrMasterRunning, pid)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	// The pid is written over the last one, padded to the same length, so
	// that a full disk, which has no block to give a truncated file, still
	// lets the master start.
	pid := fmt.Sprintf("%-*d\n", lockPidWidth-1, os.Getpid())
	if _, err := f.WriteAt([]byte(pid), 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("write master lock: %w", err)
	}
	if err := f.Truncate(lockPidWidth); err != nil {
		f.Close()
		return nil, fmt.Errorf("write master lock: %w", err)
	}
	return &MasterLock{file: f}, nil
}

// Release lets go of the workspace. The pid stays in the file, whose block
// the next master reuses; only the flock tells that one runs.
func (l *MasterLock) Release() {
	l.file.Close() // closing drops the flock
}

// MasterRunning reports whether a master holds the workspace, and its pid.
func (w *Workspace) MasterRunning() (pid int, running bool) {
	f, err := os.Open(w.MasterLock())
	if err != nil {
		return 0, false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return readLockPid(f), true
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return 0, false
}

func readLockPid(f *os.File) int {
	buf := make([]byte, 32)
	n, _ := f.ReadAt(buf, 0)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	return pid
}

// ErrMasterStillRunning is returned by StopMaster when the master outlived
// its time.
var ErrMasterStillRunning = errors.New("the master did not stop")

// StopMaster asks the workspace's master to stop (SIGTERM) and waits up to
// limit for it to let go of the workspace. It returns the pid it stopped, 0
// when none ran.
func (w *Workspace) StopMaster(ctx context.Context, limit time.Duration) (int, error) {
	pid, running := w.MasterRunning()
	if !running {
		return 0, nil
	}
	if pid <= 0 {
		return 0, fmt.Errorf("a master holds %s but its pid is not in it", w.MasterLock())
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return pid, fmt.Errorf("stop the master (pid %d): %w", pid, err)
	}
	gone := func() bool { _, still := w.MasterRunning(); return !still }
	if !watch.Until(ctx, 20*time.Millisecond, limit, gone) {
		if ctx.Err() != nil {
			return pid, ctx.Err()
		}
		return pid, fmt.Errorf("%w: pid %d within %s of SIGTERM", ErrMasterStillRunning, pid, limit)
	}
	return pid, nil
}
