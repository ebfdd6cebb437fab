package master

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"switchboard/watch"

	"switchboard/agents"
	"switchboard/bulletin"
	"switchboard/mailbox"
	"switchboard/tmux"
)

// freshSession is how long before the master's start a session counts as
// just brought up (up starts the session, then the master in it).
const freshSession = 30 * time.Second

// DefaultPaneTick is how often the master looks at the panes: one batched
// tmux call for the whole team each time.
const DefaultPaneTick = time.Second

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

	team      []string                         // the agents the rules name
	published map[string]bulletin.AgentSummary // last written to the bulletin; used by look alone
}

// view is what the master knows of one agent in its pane.
type view struct {
	seat   *agents.Seat
	state  mailbox.AgentState
	screen uint64 // hash of the pane's text at the last look
	seen   bool
	// ready: the pane's program reads what is typed (see readyAfter).
	ready      bool
	quiet      uint64    // the screen last seen while not ready
	quietSince time.Time // since when it has looked so
	firstLook  time.Time // when its screen was first looked at
	pending    []announcement
	typing     bool
	border     string
}

func newPanes(m *Master) *panes {
	tick := m.opts.PaneTick
	if tick <= 0 {
		tick = DefaultPaneTick
	}
	return &panes{
		m: m, store: m.store, tick: tick, typer: m.opts.Typing,
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

// run looks at the panes every tick, and at once when there is something to
// announce, until ctx is done.
func (p *panes) run(ctx context.Context) {
	t := time.NewTicker(p.tick)
	defer t.Stop()
	for {
		p.look(ctx)
		select {
		case <-ctx.Done():
			p.typingWG.Wait()
			return
		case <-t.C:
		case <-p.kick:
		}
	}
}

// look is one pass: reload the session if it changed, read the panes in one
// call, work out states, update borders, and announce to idle agents.
func (p *panes) look(ctx context.Context) {
	if !p.loadSession() {
		p.publishSummary(p.summarizeTeam())
		return
	}
	p.mu.Lock()
	client, session := p.client, p.session
	p.mu.Unlock()
	list, err := client.ListPanes(ctx)
	if err != nil {
		// The server is down, or answers oddly: nothing to show or type
		// into. Said once, not every second.
		if msg := err.Error(); msg != p.lastErr {
			p.lastErr = msg
			p.m.logf("cannot list the team's panes: %v", err)
		}
		return
	}
	p.lastErr = ""
	alive := make(map[string]tmux.Pane, len(list))
	for _, pane := range list {
		alive[pane.ID] = pane
	}
	p.mu.Lock()
	notReady := make(map[string]bool)
	for name := range session.Agents {
		notReady[name] = !p.viewOf(name).ready
	}
	p.mu.Unlock()
	var watchScreens []string
	hooked := make(map[string]mailbox.AgentState)
	for name, seat := range session.Agents {
		st, ok, _ := p.store.ReadState(name)
		if ok && st.Source == mailbox.SourceHook {
			hooked[name] = st
		}
		if pane, ok := alive[seat.Pane]; ok && !pane.Dead && (hooked[name].State == "" || notReady[name]) {
			watchScreens = append(watchScreens, seat.Pane)
		}
	}
	screens := p.captureScreens(ctx, client, watchScreens)

	now := time.Now().UTC()
	labels := tmux.Labels{Title: map[string]string{}}
	idle, unread := 0, 0
	summary := make(map[string]bulletin.AgentSummary, len(session.Agents))
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
		default:
			next = p.screenState(v, screens[seat.Pane].hash)
		}
		if sc, ok := screens[seat.Pane]; ok && !v.ready {
			p.settle(v, sc, now)
		}
		if changed(v.state, next) {
			if next.Since.IsZero() {
				next.Since = now
			}
			if next.Source == mailbox.SourcePane {
				// A hook that spoke since the look began has the last word.
				if cur, ok, _ := p.store.ReadState(name); ok && cur.Source == mailbox.SourceHook && next.State != mailbox.StateExited {
					next = cur
				} else if err := p.store.WriteState(name, next); err != nil {
					p.m.logf("cannot write the state of %s: %v", name, err)
				}
			}
			v.state = next
		}
		if v.state.State == mailbox.StateIdle {
			idle++
		}
		n, urgent, _ := p.store.Counts(name)
		unread += n
		summary[name] = bulletin.AgentSummary{State: v.state.State, Unread: n, Urgent: urgent}
		if border := borderOf(v, n, urgent); border != v.border {
			v.border = border
			labels.Title[seat.Pane] = border
		}
		p.maybeType(ctx, client, name, v)
	}
	if status := fmt.Sprintf("%d agents · %d idle · %d unread", len(session.Agents), idle, unread); status != p.status {
		p.status = status
		labels.Status = status
	}
	p.mu.Unlock()
	if err := client.SetLabels(ctx, labels); err != nil {
		p.m.logf("cannot update pane borders: %v", err)
	}
	p.publishSummary(summary)
}

// changed reports whether a new reading of an agent's state is news: another
// state, a hook's newer report, or an exit status that tmux filled in after
// it first showed the pane dead.
func changed(old, next mailbox.AgentState) bool {
	switch {
	case next.State != old.State:
		return true
	case next.Source == mailbox.SourceHook && next.Since != old.Since:
		return true
	case next.ExitStatus != nil && (old.ExitStatus == nil || *next.ExitStatus != *old.ExitStatus):
		return true
	}
	return false
}

// screenState is the state of an agent without hooks: starting until its
// screen has been seen, busy while it changes, idle once it stands still.
func (p *panes) screenState(v *view, screen uint64) mailbox.AgentState {
	st := mailbox.AgentState{Source: mailbox.SourcePane, Since: v.state.Since}
	switch {
	case !v.seen && v.state.State == mailbox.StateInterrupted:
		st.State = mailbox.StateInterrupted // a hooked agent after ESC: its first screen is the reference
	case !v.seen:
		st.State = mailbox.StateStarting
	case screen == v.screen:
		st.State = mailbox.StateIdle
	default:
		st.State = mailbox.StateBusy
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
func (p *panes) settle(v *view, sc screen, now time.Time) {
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
func (p *panes) captureScreens(ctx context.Context, c *tmux.Client, ids []string) map[string]screen {
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

// borderOf is the pane border: name, state, and unread mail.
func borderOf(v *view, unread, urgent int) string {
	title := v.seat.DisplayName + " · " + v.state.State
	if v.state.State == mailbox.StateExited && v.state.ExitStatus != nil {
		title += fmt.Sprintf(" (status %d)", *v.state.ExitStatus)
	}
	if unread > 0 {
		title += fmt.Sprintf(" · %d new", unread)
		if urgent > 0 {
			title += fmt.Sprintf(" (%d urgent)", urgent)
		}
	}
	return title
}

// maybeType starts announcing to an agent when it has something waiting: an
// interrupt at once, notices when it is idle. Called with p.mu held.
func (p *panes) maybeType(ctx context.Context, c *tmux.Client, name string, v *view) {
	if v.typing || len(v.pending) == 0 || v.state.State == mailbox.StateExited {
		return
	}
	interrupting := false
	for _, a := range v.pending {
		interrupting = interrupting || a.interrupt
	}
	if !interrupting && (v.state.State != mailbox.StateIdle || !v.ready) {
		return // a busy agent hears at its next checkpoint, or when idle
	}
	items := p.stillUnread(name, v.pending)
	v.pending = nil
	if len(items) == 0 {
		return
	}
	v.typing = true
	p.typingWG.Add(1)
	go func() {
		defer p.typingWG.Done()
		p.deliverToPane(ctx, c, name, v.seat, items)
		p.mu.Lock()
		v.typing = false
		p.mu.Unlock()
	}()
}

// stillUnread drops announcements of messages the agent has read meanwhile:
// nobody is told of mail they already have.
func (p *panes) stillUnread(agent string, items []announcement) []announcement {
	var out []announcement
	for _, a := range items {
		if p.store.IsUnread(agent, a.file) {
			out = append(out, a)
		}
	}
	return out
}

// deliverToPane types (or, for a shell, displays) the announcements.
func (p *panes) deliverToPane(ctx context.Context, c *tmux.Client, agent string, seat *agents.Seat, items []announcement) {
	var interrupts, notices []announcement
	for _, a := range items {
		if a.interrupt {
			interrupts = append(interrupts, a)
		} else {
			notices = append(notices, a)
		}
	}
	shell := seat.Kind == agents.KindShell
	for _, a := range interrupts {
		line := interruptLine(a, p.displayName)
		if shell {
			p.display(ctx, c, seat.Pane, line)
			p.m.logf("#%d interrupt for %s shown on its screen (a shell is never typed at)", a.seq, agent)
			continue
		}
		if err := c.Interrupt(ctx, seat.Pane); err != nil {
			p.m.logf("#%d cannot interrupt %s: %v", a.seq, agent, err)
			continue
		}
		// Claude Code runs no hook when its turn is cut short by ESC, so
		// what its hooks said last (busy) is over: until its next hook
		// speaks, the agent is interrupted, and then its screen decides.
		st := mailbox.AgentState{State: mailbox.StateInterrupted, Since: time.Now().UTC(), Source: mailbox.SourcePane, Detail: "ESC from " + a.from}
		if err := p.store.WriteState(agent, st); err != nil {
			p.m.logf("cannot write the state of %s: %v", agent, err)
		}
		p.mu.Lock()
		p.viewOf(agent).state = st
		p.mu.Unlock()
		// Typed even when a hook showed it: it says why the turn stopped.
		p.report(agent, []announcement{a}, p.claim(agent, []announcement{a}), "interrupted with ESC, then", line, c, ctx, seat)
	}
	if len(notices) == 0 {
		return
	}
	if shell {
		// A person reads the display for a few seconds; the prompt hook
		// lists the message too, so it is not claimed as shown.
		p.display(ctx, c, seat.Pane, noticeLine(notices, p.displayName))
		p.m.logf("#%d notice shown to %s on its screen (a shell is never typed at)", notices[0].seq, agent)
		return
	}
	if notices = p.claim(agent, notices); len(notices) == 0 {
		return // its hooks showed them already
	}
	p.report(agent, notices, notices, "", noticeLine(notices, p.displayName), c, ctx, seat)
}

// claim records announcements as shown to the agent before they are typed,
// so that its hooks do not show them again, and drops those its hooks have
// shown already: a message enters the conversation once.
func (p *panes) claim(agent string, items []announcement) []announcement {
	taken, err := p.store.ClaimShown(agent, files(items), "")
	if err != nil {
		p.m.logf("cannot record what %s was shown: %v", agent, err)
		return items
	}
	return slices.DeleteFunc(slices.Clone(items), func(a announcement) bool { return slices.Contains(taken, a.file) })
}

// files are the delivered file names of announcements.
func files(items []announcement) []string {
	names := make([]string, len(items))
	for i, a := range items {
		names[i] = a.file
	}
	return names
}

// report types the line that announces items and logs what became of it;
// when it was not submitted, the messages claimed for it are given back to
// the hooks.
func (p *panes) report(agent string, items, claimed []announcement, prefix, line string, c *tmux.Client, ctx context.Context, seat *agents.Seat) {
	began := time.Now().UTC()
	typed, err := c.SendLine(ctx, seat.Pane, line, p.typer)
	confirmed := false
	if err == nil && !typed.Verified && hookedKinds[seat.Kind] {
		confirmed, typed, err = p.confirmByHook(ctx, c, agent, seat.Pane, typed, began)
	}
	if err != nil && len(claimed) > 0 {
		if ferr := p.store.ForgetShown(agent, files(claimed)); ferr != nil {
			p.m.logf("cannot record what %s was shown: %v", agent, ferr)
		}
	}
	seqs := make([]string, len(items))
	for i, a := range items {
		seqs[i] = fmt.Sprintf("#%d", a.seq)
	}
	what := strings.TrimSpace(prefix + " notice")
	switch {
	case err != nil:
		p.m.logf("%s %s for %s NOT submitted: %v", strings.Join(seqs, " "), what, agent, err)
	case typed.Verified:
		p.m.logf("%s %s typed to %s and submitted (verified)", strings.Join(seqs, " "), what, agent)
	case confirmed:
		p.m.logf("%s %s typed to %s and submitted (its hook confirmed, after %d Enter presses)", strings.Join(seqs, " "), what, agent, typed.Enters)
	default:
		p.m.logf("%s %s typed to %s; Enter sent, not verifiable (the program does not echo)", strings.Join(seqs, " "), what, agent)
	}
}

// hookConfirm is how long a hooked agent's hook gets to say that a typed
// prompt reached the agent, before the line is submitted again.
const hookConfirm = 3 * time.Second

// hookedKinds are the kinds of agent whose prompt hook runs when a typed
// line is submitted, so that their hook can confirm it.
var hookedKinds = map[string]bool{agents.KindClaude: true, agents.KindCodex: true, agents.KindGemini: true}

// confirmByHook checks a line typed into a program that draws its own input
// box, where the cursor is not (Gemini CLI): the screen cannot say whether
// it was taken, but the agent's prompt hook can, by writing its state. When
// no hook speaks in time the line is submitted again, twice at most: a
// client that ran its start-up hook may not read its input yet.
func (p *panes) confirmByHook(ctx context.Context, c *tmux.Client, agent, pane string, typed tmux.Typed, since time.Time) (bool, tmux.Typed, error) {
	for try := 0; ; try++ {
		if p.heardSince(ctx, agent, since) {
			return true, typed, nil
		}
		if try == 2 {
			return false, typed, fmt.Errorf("no hook of %s ran after %d Enter presses: %w", agent, typed.Enters, tmux.ErrNotSubmitted)
		}
		var err error
		if typed, err = c.Resubmit(ctx, pane, typed, p.typer); err != nil {
			return false, typed, err
		}
	}
}

// heardSince waits up to hookConfirm for a hook of the agent to write its
// state after since.
func (p *panes) heardSince(ctx context.Context, agent string, since time.Time) bool {
	return watch.Until(ctx, 50*time.Millisecond, hookConfirm, func() bool {
		st, ok, _ := p.store.ReadState(agent)
		return ok && st.Source == mailbox.SourceHook && st.Since.After(since) && st.State != mailbox.StateInterrupted
	})
}

func (p *panes) display(ctx context.Context, c *tmux.Client, pane, line string) {
	if err := c.Display(ctx, pane, line, 8*time.Second); err != nil {
		p.m.logf("cannot show a notice on %s: %v", pane, err)
	}
}

func (p *panes) displayName(agent string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.session != nil {
		if seat, ok := p.session.Agents[agent]; ok && seat.DisplayName != "" {
			return seat.DisplayName
		}
	}
	return agents.DisplayName(agent)
}

// loadSession (re)reads mailboxes/session.json when it changed. A new
// session is a team brought up again: each agent is told of its unread mail.
func (p *panes) loadSession() bool {
	stamp := fileStamp(p.m.ws.SessionFile())
	p.mu.Lock()
	defer p.mu.Unlock()
	if stamp == p.stamp {
		return p.session != nil
	}
	p.stamp = stamp
	s, ok, err := agents.LoadSession(p.m.ws)
	if err != nil {
		p.m.logf("%v", err)
	}
	if !ok || err != nil {
		p.session, p.client = nil, nil
		return false
	}
	if old := p.session; old != nil && old.Socket == s.Socket && old.Name == s.Name && old.ServerPID == s.ServerPID && old.Started.Equal(s.Started) {
		// The same session with seats added or removed (spawn, close):
		// what is known of the others, and their pending notices, stays.
		p.session = s
		for name := range p.views {
			if _, ok := s.Agents[name]; !ok {
				delete(p.views, name)
			}
		}
		p.m.logf("team in tmux session %q changed: %d panes", s.Name, len(s.Agents))
		return true
	}
	p.session, p.client = s, p.newTmux(s.Socket)
	p.views = make(map[string]*view)
	p.status = ""
	names := make([]string, 0, len(s.Agents))
	for name := range s.Agents {
		names = append(names, name)
	}
	sort.Strings(names)
	// A team just brought up is told of the mail waiting for it. A master
	// restarted under a running team is not: it would repeat what the
	// agents were told already.
	fresh := s.Started.After(p.m.started.Add(-freshSession))
	for _, name := range names {
		v := p.viewOf(name)
		if fresh {
			v.pending = p.unreadAnnouncements(name)
		}
	}
	p.m.logf("team in tmux session %q (socket %s): %d panes", s.Name, s.Socket, len(s.Agents))
	return true
}

// unreadAnnouncements lists an agent's unread mail that is announced by
// typing, so that a team brought up again hears of what waits for it.
func (p *panes) unreadAnnouncements(agent string) []announcement {
	entries, err := p.store.List(agent, mailbox.Unread)
	if err != nil {
		return nil
	}
	var out []announcement
	for _, e := range entries {
		if !typedPriority(e.Priority) {
			continue
		}
		msg, err := mailbox.Load(e.Path)
		if err != nil {
			continue
		}
		out = append(out, announcement{seq: msg.Seq, id: msg.ID, from: msg.From, title: msg.Title, file: e.Name})
	}
	return out
}
