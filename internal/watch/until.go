package watch

import (
	"context"
	"time"
)

// Until looks at cond every interval until it holds, limit passes or ctx
// ends, and reports whether it held. It looks once at once, and once more
// at the limit.
func Until(ctx context.Context, every, limit time.Duration, cond func() bool) bool {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		if cond() {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-deadline.C:
			return cond()
		case <-tick.C:
		}
	}
}

// Sleep waits d, or until ctx ends, and then returns ctx's error.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Every looks at cond every interval, the first time one interval from
// now, until it holds or ctx ends, and reports whether it held.
func Every(ctx context.Context, every time.Duration, cond func() bool) bool {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
			if cond() {
				return true
			}
		}
	}
}
