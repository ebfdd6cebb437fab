package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"switchboard/internal/pidlock"
	"switchboard/workspace"
)

// ErrUpBusy is returned when another process has been bringing the team up
// for longer than LockUp waits for it.
var ErrUpBusy = errors.New("another switchboard up is still bringing the team up")

// UpLock is held by the one process at a time that brings the team up in
// tmux, or starts its master again: two up at once bring up one team, and
// the second finds it up once the first is done.
type UpLock struct{ lock *pidlock.Lock }

// upLockPoll is how often a waiting LockUp tries the lock again.
const upLockPoll = 20 * time.Millisecond

// LockUp takes the workspace's up lock (a flock, which the kernel drops
// when its holder dies). When another process holds it, waiting is called
// once with that process's pid, and LockUp waits for it to let go, for at
// most wait: ErrUpBusy after that.
func LockUp(ctx context.Context, ws *workspace.Workspace, wait time.Duration, waiting func(pid int)) (*UpLock, error) {
	if err := os.MkdirAll(ws.Store.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("lock the team for up: %w", err)
	}
	lock, err := pidlock.Acquire(ctx, ws.UpLock(), pidlock.Wait{Poll: upLockPoll, Limit: wait, Waiting: waiting})
	var held *pidlock.HeldError
	if errors.As(err, &held) {
		return nil, fmt.Errorf("%w (pid %d, for over %s)", ErrUpBusy, held.Pid, wait)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("lock the team for up: %w", err)
	}
	return &UpLock{lock: lock}, nil
}

// Release lets go of the lock; it may be called again, and on nil.
func (l *UpLock) Release() {
	if l != nil {
		l.lock.Release()
	}
}

// UpUnderWay reports whether a process is bringing the team up (or starting
// its master again) now: it holds the up lock. The master waits for it to be
// done before it connects to tmux as a control client, since tmux 3.3a can
// crash when a window is made while a control client is still connecting.
func UpUnderWay(ws *workspace.Workspace) bool {
	_, held := pidlock.Holder(ws.UpLock())
	return held
}
