package workspace

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"switchboard/internal/pidlock"
	"switchboard/internal/watch"
)

// ErrMasterRunning is returned when another master holds the workspace.
var ErrMasterRunning = errors.New("master already running")

// MasterLock is the flock a running master holds on the workspace's lock
// file, with its pid written in it.
type MasterLock struct{ lock *pidlock.Lock }

// LockMaster takes the workspace for this process, the master, and writes
// its pid into the lock. Probes by MasterRunning hold the lock for
// microseconds, so a few quick retries tell them apart from a running
// master, which is ErrMasterRunning.
func (w *Workspace) LockMaster() (*MasterLock, error) {
	wait := pidlock.Wait{Poll: 5 * time.Millisecond, Limit: 100 * time.Millisecond}
	lock, err := pidlock.Acquire(context.Background(), w.MasterLock(), wait)
	var held *pidlock.HeldError
	if errors.As(err, &held) {
		return nil, fmt.Errorf("%w (pid %d)", ErrMasterRunning, held.Pid)
	}
	if err != nil {
		return nil, fmt.Errorf("lock the workspace for the master: %w", err)
	}
	return &MasterLock{lock: lock}, nil
}

// Release lets go of the workspace. The pid stays in the file, whose block
// the next master reuses; only the flock tells that one runs.
func (l *MasterLock) Release() {
	l.lock.Release()
}

// MasterRunning reports whether a master holds the workspace, and its pid.
func (w *Workspace) MasterRunning() (pid int, running bool) {
	return pidlock.Holder(w.MasterLock())
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
