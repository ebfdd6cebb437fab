package master

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"switchboard/agents"
	"switchboard/bulletin"
	"switchboard/internal/watch"
	"switchboard/mailbox"
	"switchboard/tmux"
)

// DefaultPaneTick is how often the master looks at the panes while one of
// them must be watched (an agent without hooks, a pane not ready yet, a
// notice being typed): one batched tmux call for the whole team each time.
const DefaultPaneTick = time.Second

// restTick is how often the master looks at a team that needs no watching:
// events wake it (a hook's state, mail delivered or read, a pane's death,
// the session changed); this look is the safety net.
const restTick = 30 * time.Second

// lookGap is the least time between two looks: a burst of events (a
// thousand messages delivered) makes a look every lookGap, not one each.
// Without a team in tmux a look only counts mail for the bulletin, which
// summaryGap is soon enough for.
const (
	lookGap    = 50 * time.Millisecond
	summaryGap = time.Second
)

// panes is the master's side of the tmux session: it follows each agent's
// state, keeps the pane borders current, and announces delivered messages in
// idle panes, each pane typed into by one goroutine at a time.
type panes struct {
	m     *Master
	store *mailbox.Store
	tick  time.Duration
	typer tmux.TypeOptions

	mu       sync.Mutex
	session  *agents.Session
	stamp    string
	status   string // the status line last set
	lastErr  string // the last error listing panes, said once
	client   *tmux.Client
	views    map[string]*view
	kick     chan struct{}
	typingWG sync.WaitGroup
	newTmux  func(socket string) *tmux.Client

	// watching: the last look found something to follow by looking
	// (screens, typing); else events wake the loop. Used by the loop alone.
	watching bool
	// eventDriven: the master hears of changes from fsnotify; polled, it
	// looks at every tick.
	eventDriven bool
	// stopServerWatch ends the wait for the tmux server's pane events of
	// the session last loaded; nil when none waits.
	stopServerWatch context.CancelFunc
	// serverWatchFailed: the server's hooks could not be set, which was
	// said; the loop looks every tick and tries again.
	serverWatchFailed bool
	// heard is what the output follower says of the panes.
	heard heard
	// control runs the session's tmux commands on one connection.
	control controlLink
	// What each look reads of every agent, read again only when changed.
	stateFiles  watch.Remembered[storedState]
	inboxCounts watch.Remembered[[2]int]
	// lookAt is when a printing pane will have been quiet for a tick: the
	// loop looks then (zero when none prints). Used by the loop alone.
	lookAt time.Time

	team            []string                         // the agents the rules name
	published       map[string]bulletin.AgentSummary // last written to the bulletin; used by look alone
	bulletinFailing bool                             // the last write of the bulletin failed, and said so; used by look alone
}

// view is what the master knows of one agent in its pane.
type view struct {
	seat   *agents.Seat
	state  mailbox.AgentState
	screen uint64 // hash of the pane's text at the last look
	// screenSince is when the screen was first seen as it is now.
	screenSince time.Time
	seen        bool
	// ready: the pane's program reads what is typed (see readyAfter).
	ready      bool
	quiet      uint64    // the screen last seen while not ready
	quietSince time.Time // since when it has looked so
	firstLook  time.Time // when its screen was first looked at
	pending    []announcement
	typing     bool
	border     string
	// alert is an interrupt shown on a shell agent's screen: its border
	// says it until the message is read.
	alert *alert
}

// alert is what a pane's border says of an interrupt not read yet.
type alert struct {
	file string // the delivered interrupt, to see whether it is still unread
	text string
}

func newPanes(m *Master) *panes {
	tick := m.opts.PaneTick
	if tick <= 0 {
		tick = DefaultPaneTick
	}
	return &panes{
		m: m, store: m.store, tick: tick, typer: m.opts.Typing, eventDriven: m.opts.Poll <= 0,
		views: make(map[string]*view), kick: make(chan struct{}, 1),
		newTmux: func(socket string) *tmux.Client { return tmux.NewClient(socket, nil) },
	}
}

// announce queues a delivered message for its recipient's pane.
func (p *panes) announce(agent string, a announcement) {
	p.mu.Lock()
	v := p.viewOf(agent)
	v.pending = append(v.pending, a)
	p.mu.Unlock()
	p.wake()
}

// wake makes the panes' loop look again now, not at its next tick.
func (p *panes) wake() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

func (p *panes) viewOf(agent string) *view {
	v, ok := p.views[agent]
	if !ok {
		v = &view{}
		p.views[agent] = v
	}
	return v
}

// run looks at the panes when woken (see wake), and every tick while the
// last look found something to watch, until ctx is done. A team at rest
// costs a look every restTick.
func (p *panes) run(ctx context.Context) {
	t := time.NewTimer(0)
	defer t.Stop()
	defer p.watchServer(ctx, nil)
	defer p.followOutput(ctx, nil, "")
	defer p.connect(ctx, nil, "")
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			p.typingWG.Wait()
			return
		case <-t.C:
		case <-p.kick:
			gap := lookGap
			p.mu.Lock()
			if p.session == nil {
				gap = summaryGap
			}
			p.mu.Unlock()
			if watch.Sleep(ctx, time.Until(last.Add(gap))) != nil {
				continue // ends at the loop's top
			}
		}
		last = time.Now()
		p.look(ctx)
		next := restTick
		if p.watching || !p.eventDriven {
			next = p.tick
		}
		if !p.lookAt.IsZero() {
			next = min(next, max(time.Until(p.lookAt), lookGap))
		}
		t.Reset(next)
	}
}

// watchServer follows the pane events of the session's tmux server (a pane
// that died or closed) without asking it anything: its hooks signal a
// channel, on which one waiting tmux client sleeps; each signal wakes the
// loop. A nil client ends the watch.
func (p *panes) watchServer(ctx context.Context, client *tmux.Client) {
	if p.stopServerWatch != nil {
		p.stopServerWatch()
		p.stopServerWatch = nil
	}
	if client == nil || !p.eventDriven {
		return
	}
	ctx, p.stopServerWatch = context.WithCancel(ctx)
	channel := fmt.Sprintf("switchboard-panes-%d", os.Getpid())
	if err := client.SignalOnPaneEvents(ctx, channel); err != nil {
		if !p.serverWatchFailed {
			p.m.logf("cannot follow the panes' events (%v): looking at them every %s until it can", err, p.tick)
		}
		p.serverWatchFailed = true
		p.stopServerWatch()
		p.stopServerWatch = nil
		return
	}
	p.serverWatchFailed = false
	go func() {
		for client.WaitFor(ctx, channel) == nil {
			p.wake()
		}
		p.wake() // the server is gone, or the watch ended: look once more
	}()
}

// look is one pass: reload the session if it changed, read the panes in one
// call, work out states, update borders, and announce to idle agents.
func (p *panes) look(ctx context.Context) {
	p.watching, p.lookAt = false, time.Time{}
	loaded, fresh := p.loadSession()
	if !loaded {
		if fresh {
			p.watchServer(ctx, nil)
			p.followOutput(ctx, nil, "")
			p.connect(ctx, nil, "")
		}
		p.publishSummary(p.summarizeTeam())
		return
	}
	p.mu.Lock()
	client, session := p.client, p.session
	p.mu.Unlock()
	if fresh || p.serverWatchFailed {
		p.watchServer(ctx, client)
	}
	if p.eventDriven && (fresh || !p.following()) {
		p.followOutput(ctx, client, session.Name)
	}
	p.connect(ctx, client, session.Name)
	list, err := client.ListPanes(ctx)
	if err != nil {
		// The server is down, or answers oddly: nothing to show or type
		// into. Said once, not every second.
		if msg := err.Error(); msg != p.lastErr {
			p.lastErr = msg
			p.m.logf("cannot list the team's panes: %v", err)
		}
		p.watching = true // looked at again each tick, as it may come back
		return
	}
	p.lastErr = ""
	alive := make(map[string]tmux.Pane, len(list))
	for _, pane := range list {
		alive[pane.ID] = pane
	}
	p.mu.Lock()
	notReady := make(map[string]bool)
	alerts := make(map[string]*alert)
	for name := range session.Agents {
		v := p.viewOf(name)
		notReady[name] = !v.ready
		if v.alert != nil {
			alerts[name] = v.alert
		}
	}
	p.mu.Unlock()
	// The disk is read before the lock is taken: routing, which announces
	// under the same lock, never waits for it.
	readAlerts := p.readAlerts(alerts)
	p.forgetGone(session)
	hooked := p.hookedStates(session)
	mail := p.mailCounts(session)
	// An agent without hooks is heard printing when a follower runs, and
	// its screen read each tick when none does; a pane not ready yet is
	// read each tick until it is.
	followed := p.following()
	var watchScreens []string
	listen := make(map[string]bool)
	for name, seat := range session.Agents {
		pane, ok := alive[seat.Pane]
		if !ok || pane.Dead {
			continue
		}
		hookless := hooked[name].State == ""
		listen[seat.Pane] = hookless
		if notReady[name] || (hookless && !followed) {
			watchScreens = append(watchScreens, seat.Pane)
		}
	}
	p.listen(listen)
	p.watching = len(watchScreens) > 0 || p.serverWatchFailed
	screens := p.captureScreens(ctx, client, watchScreens)
	printing, soonest := p.stillPrinting(time.Now())
	p.lookAt = soonest
	// A hook that spoke while the screens were read has the last word.
	hooked = p.hookedStates(session)

	now := p.m.now().UTC()
	labels := tmux.Labels{Title: map[string]string{}}
	idle, unread := 0, 0
	summary := make(map[string]bulletin.AgentSummary, len(session.Agents))
	var writes []stateWrite
	var jobs []*typing
	p.mu.Lock()
	for name, seat := range session.Agents {
		v := p.viewOf(name)
		v.seat = seat
		pane, present := alive[seat.Pane]
		next := v.state
		switch {
		case !present || pane.Dead:
			next = mailbox.AgentState{State: mailbox.StateExited, Source: mailbox.SourcePane, ExitStatus: pane.DeadStatus}
			if !present {
				next.Detail = "pane gone"
			}
		case hooked[name].State != "":
			next = hooked[name]
		case v.typing:
			// The screen shows the master's own typing: it says nothing of
			// the agent until the line is in, when typing wakes the loop.
		case followed && v.ready && listen[seat.Pane]:
			_, busy := printing[seat.Pane]
			next = heardState(v, busy)
		default:
			next = p.screenState(v, screens[seat.Pane].hash, now)
		}
		if sc, ok := screens[seat.Pane]; ok && !v.ready {
			p.settle(v, sc, now)
		}
		if changed(v.state, next) {
			if next.Since.IsZero() {
				next.Since = now
			}
			if next.Source == mailbox.SourcePane {
				writes = append(writes, stateWrite{agent: name, state: next})
			}
			v.state = next
		}
		if v.state.State == mailbox.StateIdle {
			idle++
		}
		n, urgent := mail[name][0], mail[name][1]
		unread += n
		summary[name] = bulletin.AgentSummary{State: v.state.State, Unread: n, Urgent: urgent}
		if a, read := readAlerts[name]; read && v.alert == a {
			v.alert = nil // unless a newer interrupt came meanwhile
		}
		if border := borderOf(v, n, urgent); border != v.border {
			v.border = border
			labels.Title[seat.Pane] = border
		}
		if job := p.takeTyping(name, v); job != nil {
			jobs = append(jobs, job)
		}
	}
	if status := fmt.Sprintf("%d agents · %d idle · %d unread", len(session.Agents), idle, unread); status != p.status {
		p.status = status
		labels.Status = status
	}
	p.mu.Unlock()
	p.writeStates(writes)
	for _, job := range jobs {
		p.startTyping(ctx, client, job)
	}
	if err := client.SetLabels(ctx, labels); err != nil && !errors.Is(err, tmux.ErrNoPane) {
		p.m.logf("cannot update pane borders: %v", err)
	}
	p.publishSummary(summary)
}

// readAlerts are the alerts whose interrupt has been read: the border may
// forget them.
func (p *panes) readAlerts(alerts map[string]*alert) map[string]*alert {
	read := make(map[string]*alert)
	for name, a := range alerts {
		if !p.store.IsUnread(name, a.file) {
			read[name] = a
		}
	}
	return read
}

// hookedStates are the states the agents' hooks last wrote, by agent.
func (p *panes) hookedStates(session *agents.Session) map[string]mailbox.AgentState {
	hooked := make(map[string]mailbox.AgentState)
	for name := range session.Agents {
		if st, ok := p.readState(name); ok && st.Source == mailbox.SourceHook {
			hooked[name] = st
		}
	}
	return hooked
}

// storedState is what an agent's state file held.
type storedState struct {
	state mailbox.AgentState
	ok    bool // there was one
}

// readState reads an agent's state file, unless it is as it was when last
// read: each look reads every agent's.
func (p *panes) readState(agent string) (mailbox.AgentState, bool) {
	got, _ := p.stateFiles.Get(p.store.StatePath(agent), func() (storedState, error) {
		st, ok, err := p.store.ReadState(agent)
		return storedState{state: st, ok: ok}, err
	})
	return got.state, got.ok
}

// mailCounts are each agent's unread and urgent unread messages, each
// inbox listed again only when it changed.
func (p *panes) mailCounts(session *agents.Session) map[string][2]int {
	mail := make(map[string][2]int, len(session.Agents))
	for name := range session.Agents {
		mail[name], _ = p.inboxCounts.Get(p.store.InboxDir(name), func() ([2]int, error) {
			n, urgent, err := p.store.Counts(name)
			return [2]int{n, urgent}, err
		})
	}
	return mail
}

// forgetGone drops what was read of agents no longer in the session.
func (p *panes) forgetGone(session *agents.Session) {
	keep := make(map[string]bool, 2*len(session.Agents))
	for name := range session.Agents {
		keep[p.store.StatePath(name)] = true
		keep[p.store.InboxDir(name)] = true
	}
	p.stateFiles.Forget(func(path string) bool { return keep[path] })
	p.inboxCounts.Forget(func(path string) bool { return keep[path] })
}

// stateWrite is a state the screen or the pane's death gave an agent, to be
// written to its state file.
type stateWrite struct {
	agent string
	state mailbox.AgentState
}

// writeStates writes what the screens said, unless a hook of the agent spoke
// meanwhile: hooks have the last word, but on a pane that died.
func (p *panes) writeStates(writes []stateWrite) {
	for _, w := range writes {
		if cur, ok := p.readState(w.agent); ok && cur.Source == mailbox.SourceHook && w.state.State != mailbox.StateExited {
			p.mu.Lock()
			if v := p.viewOf(w.agent); v.state == w.state {
				v.state = cur
			}
			p.mu.Unlock()
			continue
		}
		if err := p.store.WriteState(w.agent, w.state); err != nil {
			p.m.logf("cannot write the state of %s: %v", w.agent, err)
		}
	}
}
