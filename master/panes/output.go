package panes

import (
	"context"
	"errors"
	"sync"
	"time"

	"switchboard/conversation"
	"switchboard/internal/tmux"
	"switchboard/lifecycle"
)

// heard is what the master hears of the panes' printing from the output
// follower of the session loaded (see tmux.FollowOutput): an agent without
// hooks is busy while its pane prints and idle once it has been quiet for
// a tick, with no screen read. The printing of agents whose hooks speak is
// passed over.
type heard struct {
	mu       sync.Mutex
	follower *tmux.OutputFollower // nil while none follows the session
	stop     context.CancelFunc
	// listened are the panes whose printing counts.
	listened map[string]bool
	// printing are the listened panes that printed since they were last
	// found quiet, and when they last printed.
	printing map[string]time.Time
	failed   string // the last failure to follow, said once
}

// followOutput starts following the output of the session loaded, ending
// any earlier follower; a nil client only ends it. On a client that cannot
// follow, the screens are read instead.
func (p *Panes) followOutput(ctx context.Context, client *tmux.Client, session string) {
	h := &p.heard
	h.mu.Lock()
	if h.stop != nil {
		h.stop()
	}
	h.follower, h.stop = nil, nil
	h.listened, h.printing = map[string]bool{}, map[string]time.Time{}
	h.mu.Unlock()
	if client == nil || !p.eventDriven {
		return
	}
	if lifecycle.UpUnderWay(p.ws) {
		// Its windows are still being made, and tmux 3.3a can crash when
		// a window is made while a control client connects: the screens
		// are read until the next look, in a moment.
		time.AfterFunc(time.Second, p.Wake)
		return
	}
	ctx, stop := context.WithCancel(ctx)
	f, err := client.FollowOutput(ctx, session, p.printed)
	if err != nil {
		stop()
		p.followFailed(err)
		return
	}
	h.mu.Lock()
	h.follower, h.stop, h.failed = f, stop, ""
	h.mu.Unlock()
	go func() {
		err := <-f.Ended()
		h.mu.Lock()
		if h.follower == f {
			h.follower = nil
		}
		h.mu.Unlock()
		if err != nil {
			p.followFailed(err)
		}
		p.Wake() // the screens are read until a follower runs again
	}()
}

// followFailed says once why the output cannot be followed.
func (p *Panes) followFailed(err error) {
	if errors.Is(err, tmux.ErrNoControlMode) {
		return // a stand-in of tmux: its screens are all there is
	}
	h := &p.heard
	h.mu.Lock()
	said := h.failed == err.Error()
	h.failed = err.Error()
	h.mu.Unlock()
	if !said {
		p.logf("cannot follow what the panes print (%v): reading their screens every %s until it can", err, p.tick)
	}
}

// following reports whether a follower hears the session's panes.
func (p *Panes) following() bool {
	p.heard.mu.Lock()
	defer p.heard.mu.Unlock()
	return p.heard.follower != nil
}

// printed is the follower's word that pane printed: a listened pane that
// was quiet wakes the loop.
func (p *Panes) printed(pane string) {
	h := &p.heard
	h.mu.Lock()
	if !h.listened[pane] {
		h.mu.Unlock()
		return
	}
	_, already := h.printing[pane]
	h.printing[pane] = time.Now()
	h.mu.Unlock()
	if !already {
		p.Wake()
	}
}

// listen hears the panes in listen: the printing of the others (agents
// whose hooks speak) is passed over. They are not muted in tmux: a pane
// every control client has turned off is no longer read by the server, and
// its program stops when its terminal fills.
func (p *Panes) listen(listen map[string]bool) {
	h := &p.heard
	h.mu.Lock()
	defer h.mu.Unlock()
	h.listened = listen
	for pane := range h.printing {
		if !listen[pane] {
			delete(h.printing, pane)
		}
	}
}

// stillPrinting are the listened panes that printed within the last tick,
// with when each last did; the others are forgotten, so that their next
// printing wakes the loop. soonest is when the first of them will have
// been quiet for a tick (zero when none prints).
func (p *Panes) stillPrinting(now time.Time) (printing map[string]time.Time, soonest time.Time) {
	h := &p.heard
	h.mu.Lock()
	defer h.mu.Unlock()
	printing = make(map[string]time.Time, len(h.printing))
	for pane, last := range h.printing {
		if now.Sub(last) >= p.tick {
			delete(h.printing, pane)
			continue
		}
		printing[pane] = last
		if quiet := last.Add(p.tick); soonest.IsZero() || quiet.Before(soonest) {
			soonest = quiet
		}
	}
	return printing, soonest
}

// heardState is the state of a ready agent without hooks whose pane is
// listened to: busy while it prints, idle once quiet for a tick.
func heardState(v *view, printing bool) conversation.State {
	st := conversation.State{Source: conversation.SourcePane, State: conversation.Idle, Since: v.state.Since}
	if printing {
		st.State = conversation.Busy
	}
	if st.State != v.state.State {
		st.Since = time.Time{}
	}
	return st
}
