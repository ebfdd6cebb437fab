package panes

import (
	"context"
	"hash/fnv"
	"strings"
	"time"

	"switchboard/conversation"
	"switchboard/internal/tmux"
)

// changed reports whether a new reading of an agent's state is news: another
// state, a hook's newer report, or an exit status that tmux filled in after
// it first showed the pane dead.
func changed(old, next conversation.State) bool {
	switch {
	case next.State != old.State:
		return true
	case next.Source == conversation.SourceHook && next.Since != old.Since:
		return true
	case next.ExitStatus != nil && (old.ExitStatus == nil || *next.ExitStatus != *old.ExitStatus):
		return true
	}
	return false
}

// screenState is the state of an agent without hooks: starting until its
// screen has been seen, busy while it changes, idle once it has stood still
// for a tick: looks come as often as events do, and a program that pauses
// between two of them is not done.
func (p *Panes) screenState(v *view, screen uint64, now time.Time) conversation.State {
	st := conversation.State{Source: conversation.SourcePane, Since: v.state.Since}
	if !v.seen || screen != v.screen {
		v.screenSince = now
	}
	switch {
	case !v.seen && v.state.State == conversation.Interrupted:
		st.State = conversation.Interrupted // a hooked agent after ESC: its first screen is the reference
	case !v.seen:
		st.State = conversation.Starting
	case screen != v.screen:
		st.State = conversation.Busy
	case now.Sub(v.screenSince) >= p.tick || v.state.State == conversation.Idle:
		st.State = conversation.Idle
	default:
		st.State = v.state.State // standing still, not yet for a tick
	}
	if st.State != v.state.State {
		st.Since = time.Time{}
	}
	v.screen, v.seen = screen, true
	return st
}

// readyAfter is how long a pane's screen must stand still before the first
// line is typed into it. A client may run its start-up hook, and so look
// idle, before it reads its input (Gemini CLI does): a line typed then is
// lost. A client that draws a screen must have drawn it, too.
const readyAfter = time.Second

// readyAtLatest ends the wait for a screen that never stands still (a clock
// on it, say): the pane counts as ready then.
const readyAtLatest = 10 * time.Second

// settle marks a pane ready once its screen has stood still long enough.
func (p *Panes) settle(v *view, sc screen, now time.Time) {
	if v.firstLook.IsZero() {
		v.firstLook = now
	}
	switch {
	case now.Sub(v.firstLook) >= readyAtLatest:
		v.ready = true
	case sc.hash != v.quiet || v.quietSince.IsZero():
		v.quiet, v.quietSince = sc.hash, now
	case sc.blank && hookedKinds[v.seat.Kind]:
		// still starting: its screen is not drawn yet
	case now.Sub(v.quietSince) >= readyAfter:
		v.ready = true
	}
}

// screen is what a look at a pane's text keeps of it.
type screen struct {
	hash  uint64
	blank bool
}

// captureScreens reads several panes' text in one tmux call and keeps a
// hash of each.
func (p *Panes) captureScreens(ctx context.Context, c *tmux.Client, ids []string) map[string]screen {
	texts, err := c.Screens(ctx, ids)
	screens := make(map[string]screen, len(texts))
	if err != nil {
		return screens
	}
	for id, text := range texts {
		h := fnv.New64a()
		h.Write([]byte(text))
		screens[id] = screen{hash: h.Sum64(), blank: strings.TrimSpace(text) == ""}
	}
	return screens
}
