package master

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"switchboard/internal/watch"
	"switchboard/workspace"
)

// ErrStillRunning is returned by Stop when the master outlived its time.
var ErrStillRunning = errors.New("the master did not stop")

// Stop asks the workspace's master to stop (SIGTERM) and waits up to limit
// for it to let go of the workspace. It returns the pid it stopped, 0 when
// none ran.
func Stop(ctx context.Context, ws *workspace.Workspace, limit time.Duration) (int, error) {
	pid, running := ws.MasterRunning()
	if !running {
		return 0, nil
	}
	if pid <= 0 {
		return 0, fmt.Errorf("a master holds %s but its pid is not in it", ws.MasterLock())
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return pid, fmt.Errorf("stop the master (pid %d): %w", pid, err)
	}
	gone := func() bool { _, still := ws.MasterRunning(); return !still }
	if !watch.Until(ctx, 20*time.Millisecond, limit, gone) {
		if ctx.Err() != nil {
			return pid, ctx.Err()
		}
		return pid, fmt.Errorf("%w: pid %d within %s of SIGTERM", ErrStillRunning, pid, limit)
	}
	return pid, nil
}
