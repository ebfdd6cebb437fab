package panes

import (
	"context"
	"errors"
	"time"

	"switchboard/internal/tmux"
	"switchboard/lifecycle"
)

// controlRetry is how long after a failed control connection the master
// tries again; meanwhile each tmux command is a process of its own.
const controlRetry = 10 * time.Second

// controlLink is the master's control connection to the session loaded
// (see tmux.Client.ConnectControl): the notices are typed, and the screens
// read, with no tmux process started per command. Used by the loop alone.
type controlLink struct {
	stop     context.CancelFunc // ends the connection; nil when none was made
	client   *tmux.Client       // the client connected
	failedAt time.Time          // the last failure, said once
	failed   string
}

// connect makes the session's client run its commands over a control
// connection, ending the one of any earlier session; a nil client only
// ends it. A failure is said once, and tried again after controlRetry.
func (p *Panes) connect(ctx context.Context, client *tmux.Client, session string) {
	l := &p.control
	same := client != nil && client == l.client
	if same && client.Controlled() {
		return
	}
	if same && l.stop != nil {
		// The connection made ended (its session did, or tmux dropped it):
		// a process per command until the retry.
		l.stop()
		l.stop, l.failedAt = nil, time.Now()
	}
	if same && time.Since(l.failedAt) < controlRetry {
		return
	}
	if l.stop != nil {
		l.stop()
		l.stop, l.client = nil, nil
	}
	if client == nil || !p.eventDriven || p.byProcess {
		return
	}
	if lifecycle.UpUnderWay(p.ws) {
		// Its windows are still being made: look again in a moment.
		time.AfterFunc(time.Second, p.Wake)
		return
	}
	ctx, stop := context.WithCancel(ctx)
	l.client = client
	if err := client.ConnectControl(ctx, session); err != nil {
		stop()
		l.failedAt = time.Now()
		// No session or server is said by the look that lists the panes.
		quiet := errors.Is(err, tmux.ErrNoControlMode) || errors.Is(err, tmux.ErrNoSession) || errors.Is(err, tmux.ErrNoServer)
		if !quiet && err.Error() != l.failed {
			p.logf("cannot keep a control connection to tmux (%v): a tmux process per command until it can", err)
		}
		l.failed = err.Error()
		return
	}
	l.stop, l.failed = stop, ""
}
