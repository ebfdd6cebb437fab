package panes

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"switchboard/internal/tmux"
	"switchboard/internal/watch"
)

// An agent's client (Claude Code, Codex CLI, Gemini CLI) that exits while
// the team is up (a crash, an out-of-memory kill, /exit typed by mistake)
// is started again in its pane, on its conversation, after a pause that grows with each restart of
// a short time. A client that keeps exiting (a crash loop) stays exited,
// and the overseers are told why, with its last lines. A pane closed (close,
// down) is gone, not exited: it is never started again. Its mail waits, and
// is announced once it is back.

// Restarts of one agent within crashWindow beyond maxRestarts are a crash
// loop; restartPause is the pause before each restart of the window, by
// how many came before it.
const (
	crashWindow = 10 * time.Minute
	maxRestarts = 3
)

var restartPause = []time.Duration{0, time.Second, 4 * time.Second}

// lastLines is how many of a crashed client's last lines the overseers
// are shown.
const lastLines = 8

// restart is a client to start again after a pause, or, with gaveUp, one
// that will not be.
type restart struct {
	agent  string
	pane   string
	pause  time.Duration
	gaveUp bool
	status *int
}

// takeRestart decides, under the lock, what becomes of an agent whose pane
// shows its program ended; nil when it is handled already, or when the
// client never came up since it was started (a typo in its command, which
// up reports to the person). Called from decide when the pane is dead.
func (p *Panes) takeRestart(name, pane string, v *view, status *int, now time.Time) *restart {
	if p.restartClient == nil || v.restarting || v.gaveUp || !v.cameUp || !hookedKinds[v.seat.Kind] {
		return nil // a shell or a generic program a person or its own end closed stays as it is
	}
	v.cameUp = false
	recent := v.restarts[:0]
	for _, at := range v.restarts {
		if now.Sub(at) < crashWindow {
			recent = append(recent, at)
		}
	}
	v.restarts = recent
	if len(recent) >= maxRestarts {
		v.gaveUp = true
		return &restart{agent: name, pane: pane, gaveUp: true, status: status}
	}
	v.restarting = true
	v.restarts = append(v.restarts, now)
	// The program started again is new to the pane: it is waited for as
	// any program starting (readyAfter), and its session is looked up anew.
	v.ready, v.seen, v.firstLook, v.quiet, v.quietSince = false, false, time.Time{}, 0, time.Time{}
	v.inboxDown, v.inboxWhy = "", ""
	delete(p.sessions, name)
	return &restart{agent: name, pane: pane, pause: p.restartPauses[len(recent)], status: status}
}

// startRestart runs a restart in a goroutine of its own.
func (p *Panes) startRestart(ctx context.Context, c *tmux.Client, r *restart) {
	p.typingWG.Add(1)
	go func() {
		defer p.typingWG.Done()
		defer p.Wake()
		if r.gaveUp {
			lines := p.lastLinesOf(ctx, c, r.pane)
			p.logf("%s exited %d times within %s: not started again (%s)", r.agent, maxRestarts+1, crashWindow, exitOf(r.status))
			if p.crashLoop != nil {
				p.crashLoop(r.agent, exitOf(r.status), lines)
			}
			return
		}
		if watch.Sleep(ctx, r.pause) != nil {
			return
		}
		err := p.restartClient(ctx, c, r.agent)
		p.mu.Lock()
		v := p.viewOf(r.agent)
		v.restarting = false
		if errors.Is(err, ErrNotRestarted) {
			v.gaveUp = true // cancelled: it stays as it ended
		}
		p.mu.Unlock()
		switch {
		case errors.Is(err, ErrNotRestarted):
		case err != nil:
			p.logf("cannot start %s again: %v", r.agent, err)
			if p.crashLoop != nil {
				p.crashLoop(r.agent, "it could not be started again: "+err.Error(), nil)
			}
		default:
			p.logf("%s's client ended (%s): started again in its pane, on its conversation where it can", r.agent, exitOf(r.status))
			p.announceWaiting(r.agent)
		}
	}()
}

// announceWaiting queues the agent's unread mail to be announced once its
// client started again is ready: a conversation gone on with was shown
// some of it already (claimed as shown, it is not typed twice); a new one
// was shown none of it, and hears of all of it.
func (p *Panes) announceWaiting(agent string) {
	waiting := p.unreadAnnouncements(agent)
	p.mu.Lock()
	defer p.mu.Unlock()
	v := p.viewOf(agent)
	for _, a := range waiting {
		if !slices.ContainsFunc(v.pending, func(b announcement) bool { return b.file == a.file }) {
			v.pending = append(v.pending, a)
		}
	}
}

// ErrNotRestarted is what Config.Restart returns for an agent that is not
// to be started again (one its parent cancelled).
var ErrNotRestarted = errors.New("not to be started again")

// lastLinesOf is the last non-blank lines a dead pane printed.
func (p *Panes) lastLinesOf(ctx context.Context, c *tmux.Client, pane string) []string {
	history, err := c.History(ctx, pane)
	if err != nil {
		return nil
	}
	var lines []string
	for _, line := range strings.Split(history, "\n") {
		line = strings.TrimRight(line, " ")
		if line != "" && !strings.HasPrefix(line, "Pane is dead") {
			lines = append(lines, line)
		}
	}
	return lines[max(0, len(lines)-lastLines):]
}

func exitOf(status *int) string {
	if status == nil {
		return "killed by a signal"
	}
	return "exit status " + strconv.Itoa(*status)
}
