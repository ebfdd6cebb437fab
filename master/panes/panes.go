package panes

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"sync"
	"time"

	"switchboard/bulletin"
	"switchboard/conversation"
	"switchboard/internal/clientinbox"
	"switchboard/internal/tmux"
	"switchboard/internal/watch"
	"switchboard/lifecycle"
	"switchboard/mailbox"
	"switchboard/workspace"
)

// DefaultPaneTick is how often the master looks at the panes while one of
// them must be watched (an agent without hooks, a pane not ready yet, a
// notice being typed): one batched tmux call for the whole team each time.
const DefaultPaneTick = time.Second

// RestTick is how often the master looks at a team that needs no watching:
// events wake it (a hook's state, mail delivered or read, a pane's death,
// the session changed); this look is the safety net.
const RestTick = 30 * time.Second

// lookGap is the least time between two looks: a burst of events (a
// thousand messages delivered) makes a look every lookGap, not one each.
// Without a team in tmux a look only counts mail for the bulletin, which
// summaryGap is soon enough for.
const (
	lookGap    = 50 * time.Millisecond
	summaryGap = time.Second
)

// Panes is the master's side of the tmux session: it follows each agent's
// state, keeps the pane borders current, and announces delivered messages in
// idle panes, each pane typed into by one goroutine at a time.
type Panes struct {
	ws    *workspace.Workspace
	store *mailbox.Store
	// book keeps each agent's state and what its conversation was shown.
	book     *conversation.Book
	now      func() time.Time
	logf     func(format string, args ...any)
	started  time.Time // the master's start: a team brought up after it is told of the mail waiting
	tick     time.Duration
	typer    tmux.TypeOptions
	hookWait time.Duration // how long a prompt hook gets to confirm a typed line
	// inboxTake is how long a client gets to take a notice handed to its
	// inbox into its queue (inboxTake), inboxWait how long one that is not
	// working gets to put it into its conversation (inboxConfirm).
	inboxTake, inboxWait time.Duration
	byProcess            bool // each tmux command in a process of its own, no control connection

	mu       sync.Mutex
	session  *lifecycle.Session
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
	// What each agent's client says of its session (clients.go); sessions
	// is used by the loop alone.
	clientRecords watch.Remembered[clientRecord]
	clientEntries watch.Remembered[clientinbox.Session]
	sessions      map[string]clientinbox.Session
	turnLogs      map[string]*turnLog
	// lookAt is when a printing pane will have been quiet for a tick: the
	// loop looks then (zero when none prints). Used by the loop alone.
	lookAt time.Time

	limited       func(agent string, st conversation.State)
	budget        func(agent string) (over bool, detail string, err error)
	budgetChanged func(agent string, over bool, detail string)
	restartClient func(ctx context.Context, c *tmux.Client, agent string) error
	crashLoop     func(agent, why string, lines []string)
	restartPauses []time.Duration // restartPause

	team            []string                         // the agents the rules name
	published       map[string]bulletin.AgentSummary // last written to the bulletin; used by look alone
	bulletinFailing bool                             // the last write of the bulletin failed, and said so; used by look alone
}

// view is what the master knows of one agent in its pane.
type view struct {
	seat   *lifecycle.Seat
	state  conversation.State
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
	pruneAt    int // the length of pending at which it is pruned next
	typing     bool
	border     string
	// borderStyle is the style last set on the pane's border lines.
	borderStyle string
	// alert is an interrupt shown on a shell agent's screen: its border
	// says it until the message is read.
	alert *alert
	// inbox: its client has an inbox of its own, which takes its notices
	// also while it works; inboxDown is the inbox (inboxKey) that did not,
	// whose notices are typed until inboxRetryAt; inboxWhy is why, as
	// last said.
	inbox        bool
	inboxDown    string
	inboxWhy     string
	inboxRetryAt time.Time
	// restarts are when its client was started again lately; restarting:
	// one is under way; gaveUp: it is not started again (a crash loop, or
	// cancelled); cameUp: its client said it was idle, busy or waiting
	// since it was last started.
	restarts   []time.Time
	restarting bool
	gaveUp     bool
	cameUp     bool
	// limitTold: the overseers were told of its limit, since its last turn
	// that worked.
	limitTold bool
	// overBudget: its client spent its day's budget, and its notices are
	// held; budgetAt is when it was last checked, budgetChecking while a
	// check runs.
	overBudget     bool
	budgetAt       time.Time
	budgetChecking bool
}

// alert is what a pane's border says of an interrupt not read yet.
type alert struct {
	file string // the delivered interrupt, to see whether it is still unread
	text string
}

// Config is what the panes need of the master.
type Config struct {
	Workspace *workspace.Workspace
	Now       func() time.Time                 // the master's clock
	Logf      func(format string, args ...any) // the master's log
	Started   time.Time                        // when the master started
	// Tick is how often the panes are looked at while something is to be
	// followed by looking (DefaultPaneTick when 0).
	Tick time.Duration
	// Typing tunes how notices are typed.
	Typing tmux.TypeOptions
	// HookConfirm is how long an agent's prompt hook gets to say that a
	// typed line reached the agent before Enter is pressed again
	// (DefaultHookConfirm when 0).
	HookConfirm time.Duration
	// Polled: the master hears of no change from events, so the panes are
	// looked at every tick, and no output is followed.
	Polled bool
	// CommandsByProcess runs each tmux command in a process of its own,
	// with no control connection to the session.
	CommandsByProcess bool
	// Restart starts an agent's client again in its pane, when it ended
	// while the team was up (ErrNotRestarted for one not to be); nil
	// leaves ended clients as they are.
	Restart func(ctx context.Context, c *tmux.Client, agent string) error
	// CrashLoop says that an agent's client kept ending, with why and its
	// last lines: it is not started again.
	CrashLoop func(agent, why string, lines []string)
	// Limited says that an agent's client hit its usage or rate limit, or
	// lost its login, once an episode.
	Limited func(agent string, st conversation.State)
	// Budget reports whether an agent's client spent more today than its
	// profile's budget allows, and how much of what; nil checks none.
	Budget func(agent string) (over bool, detail string, err error)
	// BudgetChanged says that an agent went over its budget, or back
	// within it.
	BudgetChanged func(agent string, over bool, detail string)
}

// New returns the panes side of the master configured by cfg; Run runs it.
func New(cfg Config) *Panes {
	tick := cfg.Tick
	if tick <= 0 {
		tick = DefaultPaneTick
	}
	hookWait := cfg.HookConfirm
	if hookWait <= 0 {
		hookWait = DefaultHookConfirm
	}
	return &Panes{
		ws: cfg.Workspace, store: cfg.Workspace.Store, book: conversation.Of(cfg.Workspace.Store), now: cfg.Now, logf: cfg.Logf, started: cfg.Started,
		tick: tick, typer: cfg.Typing, hookWait: hookWait, inboxTake: inboxTake, inboxWait: inboxConfirm, eventDriven: !cfg.Polled, byProcess: cfg.CommandsByProcess,
		views: make(map[string]*view), kick: make(chan struct{}, 1), sessions: make(map[string]clientinbox.Session), turnLogs: make(map[string]*turnLog),
		newTmux:       func(socket string) *tmux.Client { return tmux.NewClient(socket, nil) },
		restartClient: cfg.Restart, crashLoop: cfg.CrashLoop, limited: cfg.Limited,
		budget: cfg.Budget, budgetChanged: cfg.BudgetChanged, restartPauses: restartPause,
	}
}

// Announce queues a message delivered to agent under rec for its pane:
// typed when the agent is idle, or at once with ESC first when interrupt
// (its sender may interrupt the agent). Low priority is typed only as an
// interrupt.
func (p *Panes) Announce(agent string, rec mailbox.Record, interrupt bool) {
	msg := rec.Message
	if !interrupt && !typedPriority(msg.Priority) {
		return
	}
	p.announce(agent, announcement{
		seq: rec.Seq, id: msg.ID, from: msg.From, title: msg.Title,
		file: mailbox.FileName(rec.Time, msg.Priority, msg.ID), interrupt: interrupt,
	})
}

// announce queues an announcement for agent's pane.
func (p *Panes) announce(agent string, a announcement) {
	p.mu.Lock()
	v := p.viewOf(agent)
	v.pending = append(v.pending, a)
	prune := len(v.pending) >= max(v.pruneAt, minPrune)
	p.mu.Unlock()
	if prune {
		p.prunePending(agent, v)
	}
	p.Wake()
}

// minPrune is the least number of pending announcements of an agent at
// which those of messages read meanwhile are dropped.
const minPrune = 64

// prunePending drops the announcements of messages the agent has read,
// which stillUnread would drop before typing anyway: an agent that is
// never idle, or a master with no team in tmux, would otherwise keep one
// for every message it ever received. The files are looked at without the
// lock; the list is replaced only when no one changed it meanwhile (a
// typist took it, the session was replaced, another came). The next prune
// waits for the list to double, so that each announcement is looked at a
// bounded number of times on average.
func (p *Panes) prunePending(agent string, v *view) {
	p.mu.Lock()
	items := v.pending
	p.mu.Unlock()
	kept := p.stillUnread(agent, items)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.views[agent] != v || len(v.pending) != len(items) || len(items) == 0 || &v.pending[0] != &items[0] {
		return
	}
	v.pending, v.pruneAt = kept, 2*len(kept)
}

// Wake makes the panes' loop look again now, not at its next tick.
func (p *Panes) Wake() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

func (p *Panes) viewOf(agent string) *view {
	v, ok := p.views[agent]
	if !ok {
		v = &view{}
		p.views[agent] = v
	}
	return v
}

// Run looks at the panes when woken (see wake), and every tick while the
// last look found something to watch, until ctx is done. A team at rest
// costs a look every RestTick.
func (p *Panes) Run(ctx context.Context) {
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
		next := RestTick
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
func (p *Panes) watchServer(ctx context.Context, client *tmux.Client) {
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
			p.logf("cannot follow the panes' events (%v): looking at them every %s until it can", err, p.tick)
		}
		p.serverWatchFailed = true
		p.stopServerWatch()
		p.stopServerWatch = nil
		return
	}
	p.serverWatchFailed = false
	go func() {
		for client.WaitFor(ctx, channel) == nil {
			p.Wake()
		}
		p.Wake() // the server is gone, or the watch ended: look once more
	}()
}

// look is one pass: reload the session if it changed, read the panes in one
// call, work out states, update borders, and announce to idle agents. Each
// step is a method of its own; what they find is kept in a pass.
func (p *Panes) look(ctx context.Context) {
	p.watching, p.lookAt = false, time.Time{}
	ps, ok := p.follow(ctx)
	if !ok {
		return
	}
	if !p.listPanes(ctx, ps) {
		return
	}
	p.readDisk(ps)
	p.readScreens(ctx, ps)
	labels, summary, writes, jobs, restarts, limits, budgets := p.decide(ps)
	for _, c := range budgets {
		p.checkBudget(c)
	}
	for _, n := range limits {
		p.logf("%s is limited: %s", n.agent, n.state.Detail)
		if p.limited != nil {
			p.limited(n.agent, n.state)
		}
	}
	p.writeStates(writes)
	for _, job := range jobs {
		p.startTyping(ctx, ps.client, job)
	}
	for _, r := range restarts {
		p.startRestart(ctx, ps.client, r)
	}
	if err := ps.client.SetLabels(ctx, labels); err != nil && !errors.Is(err, tmux.ErrNoPane) {
		p.logf("cannot update pane borders: %v", err)
	}
	p.publishSummary(summary)
}

// pass is what one look found, step by step.
type pass struct {
	client  *tmux.Client
	session *lifecycle.Session
	// listPanes: the panes of the server, by id.
	alive map[string]tmux.Pane
	// readDisk: the agents whose pane is not ready yet, the alerts whose
	// interrupt was read, what the hooks said, the unread counts.
	notReady   map[string]bool
	readAlerts map[string]*alert
	hooked     map[string]conversation.State
	mail       map[string][2]int
	// inboxes: the inbox (inboxKey) of each agent whose client runs the
	// session it recorded, for a kind of client that keeps an inbox;
	// clients: the state its session registry gives.
	inboxes    map[string]string
	clients    map[string]conversation.State
	followLogs bool // a Codex agent works: its log is read again soon
	// readScreens: the panes whose output is followed, whether a follower
	// runs, the screens read, the panes heard printing.
	listen   map[string]bool
	followed bool
	screens  map[string]screen
	printing map[string]time.Time
}

// follow loads the session when it changed, and keeps the watches of its
// server, its output and its control connection running; false when no
// team runs in tmux (the bulletin's summary is then made from the disk).
func (p *Panes) follow(ctx context.Context) (*pass, bool) {
	loaded, fresh := p.loadSession()
	if !loaded {
		if fresh {
			p.watchServer(ctx, nil)
			p.followOutput(ctx, nil, "")
			p.connect(ctx, nil, "")
		}
		p.publishSummary(p.summarizeTeam())
		return nil, false
	}
	p.mu.Lock()
	ps := &pass{client: p.client, session: p.session}
	p.mu.Unlock()
	if fresh || p.serverWatchFailed {
		p.watchServer(ctx, ps.client)
	}
	if p.eventDriven && (fresh || !p.following()) {
		p.followOutput(ctx, ps.client, ps.session.Name)
	}
	p.connect(ctx, ps.client, ps.session.Name)
	return ps, true
}

// listPanes reads the server's panes in one call; false when it cannot
// (the server is down, or answers oddly), which is said once, and the next
// tick looks again.
func (p *Panes) listPanes(ctx context.Context, ps *pass) bool {
	list, err := ps.client.ListPanes(ctx)
	if err != nil {
		if msg := err.Error(); msg != p.lastErr {
			p.lastErr = msg
			p.logf("cannot list the team's panes: %v", err)
		}
		p.watching = true
		return false
	}
	p.lastErr = ""
	ps.alive = make(map[string]tmux.Pane, len(list))
	for _, pane := range list {
		ps.alive[pane.ID] = pane
	}
	return true
}

// readDisk reads what the files say of each agent. The disk is read
// outside the lock: routing, which announces under the same lock, never
// waits for it.
func (p *Panes) readDisk(ps *pass) {
	p.mu.Lock()
	ps.notReady = make(map[string]bool)
	alerts := make(map[string]*alert)
	for name := range ps.session.Agents {
		v := p.viewOf(name)
		ps.notReady[name] = !v.ready
		if v.alert != nil {
			alerts[name] = v.alert
		}
	}
	p.mu.Unlock()
	ps.readAlerts = p.readAlerts(alerts)
	p.forgetGone(maps.Keys(ps.session.Agents))
	ps.mail = p.mailCounts(ps.session)
	ps.inboxes, ps.clients, ps.followLogs = p.readClients(ps.session)
	ps.hooked = p.hookedStates(ps)
}

// readScreens reads the screens that must be read: an agent without hooks
// is heard printing when a follower runs, and its screen read each tick
// when none does; a pane not ready yet is read each tick until it is.
func (p *Panes) readScreens(ctx context.Context, ps *pass) {
	ps.followed = p.following()
	var toRead []string
	ps.listen = make(map[string]bool)
	for name, seat := range ps.session.Agents {
		pane, ok := ps.alive[seat.Pane]
		if !ok || pane.Dead {
			continue
		}
		hookless := ps.hooked[name].State == ""
		ps.listen[seat.Pane] = hookless
		if ps.notReady[name] || (hookless && !ps.followed) {
			toRead = append(toRead, seat.Pane)
		}
	}
	p.listen(ps.listen)
	p.watching = len(toRead) > 0 || p.serverWatchFailed
	ps.screens = p.captureScreens(ctx, ps.client, toRead)
	ps.printing, p.lookAt = p.stillPrinting(time.Now())
	if at := time.Now().Add(LogTick); ps.followLogs && (p.lookAt.IsZero() || at.Before(p.lookAt)) {
		p.lookAt = at
	}
	if len(toRead) > 0 {
		// A hook that spoke while the screens were read has the last word.
		ps.hooked = p.hookedStates(ps)
	}
}

// decide works out, under the lock, each agent's state, border and summary,
// the states to write, and the notices to type now.
func (p *Panes) decide(ps *pass) (labels tmux.Labels, summary map[string]bulletin.AgentSummary, writes []stateWrite, jobs []*typing, restarts []*restart, limits []*limitedNotice, budgets []*budgetCheck) {
	now := p.now().UTC()
	labels = tmux.Labels{Title: map[string]string{}, Border: map[string]string{}}
	summary = make(map[string]bulletin.AgentSummary, len(ps.session.Agents))
	idle, unread, urgent, interrupted := 0, 0, 0, 0
	p.mu.Lock()
	defer p.mu.Unlock()
	for name, seat := range ps.session.Agents {
		v := p.viewOf(name)
		v.seat = seat
		next := p.nextState(name, seat, v, ps, now)
		turnEnded := next.State == conversation.Idle && v.state.State != conversation.Idle && v.state.State != ""
		if sc, ok := ps.screens[seat.Pane]; ok && !v.ready {
			p.settle(v, sc, now)
		}
		if changed(v.state, next) {
			if next.Since.IsZero() {
				next.Since = now
			}
			if n := noteLimit(name, v, next); n != nil {
				limits = append(limits, n)
			}
			if next.Source == conversation.SourcePane || next.Source == conversation.SourceClient {
				// The state file is what agents, the console and the web
				// view read: what the pane or the client's registry says
				// goes there too.
				writes = append(writes, stateWrite{agent: name, state: next})
			}
			v.state = next
		}
		switch v.state.State {
		case conversation.Idle, conversation.Busy, conversation.Waiting:
			v.cameUp = true
		case conversation.Exited:
			if pane, ok := ps.alive[seat.Pane]; ok && pane.Dead {
				if r := p.takeRestart(name, seat.Pane, v, pane.DeadStatus, now); r != nil {
					restarts = append(restarts, r)
				}
			}
		}
		if v.state.State == conversation.Idle {
			idle++
		}
		n, urgentHere := ps.mail[name][0], ps.mail[name][1]
		unread += n
		urgent += urgentHere
		summary[name] = bulletin.AgentSummary{State: v.state.State, Unread: n, Urgent: urgentHere}
		if a, read := ps.readAlerts[name]; read && v.alert == a {
			v.alert = nil // unless a newer interrupt came meanwhile
		}
		if v.alert != nil {
			interrupted++
		}
		if border := borderOf(v, n, urgentHere); border != v.border {
			v.border = border
			labels.Title[seat.Pane] = border
		}
		if style := borderStyle(v, urgentHere); style != v.borderStyle {
			v.borderStyle = style
			labels.Border[seat.Pane] = style
		}
		v.inbox = v.inboxUsable(ps.inboxes[name], time.Now())
		if c := p.takeBudgetCheck(name, v, turnEnded, now); c != nil {
			budgets = append(budgets, c)
		}
		if job := p.takeTyping(name, v, now); job != nil {
			jobs = append(jobs, job)
		}
	}
	status := fmt.Sprintf("%d agents · %d idle · %d unread", len(ps.session.Agents), idle, unread)
	if urgent > 0 {
		status += fmt.Sprintf(" · #[fg=yellow,bold]%d urgent#[default]", urgent)
	}
	if interrupted > 0 {
		status += fmt.Sprintf(" · #[fg=red,bold]%d interrupt unread#[default]", interrupted)
	}
	if status != p.status {
		p.status = status
		labels.Status = status
	}
	return labels, summary, writes, jobs, restarts, limits, budgets
}

// nextState is what the pass says of an agent's state: exited with its
// pane, else what its hook said, else what its pane printed or shows.
func (p *Panes) nextState(name string, seat *lifecycle.Seat, v *view, ps *pass, now time.Time) conversation.State {
	pane, present := ps.alive[seat.Pane]
	switch {
	case !present || pane.Dead:
		next := conversation.State{State: conversation.Exited, Source: conversation.SourcePane, ExitStatus: pane.DeadStatus}
		if !present {
			next.Detail = "pane gone"
		}
		return next
	case ps.hooked[name].State != "":
		return ps.hooked[name]
	case v.typing:
		// The screen shows the master's own typing: it says nothing of the
		// agent until the line is in, when typing wakes the loop.
		return v.state
	case ps.followed && v.ready && ps.listen[seat.Pane]:
		_, busy := ps.printing[seat.Pane]
		return heardState(v, busy)
	}
	return p.screenState(v, ps.screens[seat.Pane].hash, now)
}
