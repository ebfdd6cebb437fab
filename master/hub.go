package master

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"switchboard/hub"
	"switchboard/mailbox"
	"switchboard/profile"
	"switchboard/workspace"
)

// HubOptions join the master to a team across machines: the hub's URL,
// with this host's credentials, this host's name, and the team's name on
// the hub ("" is the hub's default).
type HubOptions = workspace.HubSettings

// hubRetry is how long the master waits before it tries the hub again:
// to join, to publish what waits, or to take mail.
const hubRetry = time.Second

// hubJoinTimeout bounds the first attempt to join, at start: a hub that
// does not answer by then is joined in the background, and meanwhile mail
// for other hosts waits on disk.
const hubJoinTimeout = 10 * time.Second

// hubLink is the master's part of a team across machines. The loop routes
// a copy for an agent of another host into the outbox towards the hub; the
// forwarder publishes those in order and removes each once the hub has it.
// The receiver hands each copy the hub has for this host's agents to the
// loop, which delivers it like a local one, and acknowledges it only once
// it is in the inbox, synced.
type hubLink struct {
	opts   HubOptions
	ws     *workspace.Workspace
	outbox *mailbox.HubOutbox
	logf   func(string, ...any)

	wake     chan struct{} // a copy was put in the outbox
	arrivals chan hubCopy  // copies from the hub, for the loop to deliver
	conn     atomic.Pointer[hub.Conn]

	refused *mailbox.HubRefused // notes of the copies refused here

	notes      chan hubNote  // for the overseers, from the link's goroutines
	presenceUp chan struct{} // asks present for a look at the hub now

	mu       sync.Mutex
	hosted   map[string]bool      // the agents this host runs, as last read
	notHere  map[string]time.Time // agents last found to run elsewhere, and when
	put      bool                 // the loop put copies not yet synced
	judged   map[string]string    // other hosts' helpers refused here, with why
	reported map[string]bool      // keys of the notices told already
	trouble  string               // why mail from the hub does not flow; "" when it does

	backlogWas string // the status the bulletin had before the backlog degraded it; present's alone

	// teamChanged is called when other hosts spawned or closed agents.
	teamChanged func()
}

// hubNote is a notice for the overseers that a goroutine of the link asks
// the loop to deliver: only the loop tells.
type hubNote struct{ key, title, content string }

// notHereFresh is how long an agent found to run on another host is taken
// to, before this host's agents are read again for it. A name never looked
// up (an agent spawned a moment ago) is always read.
const notHereFresh = time.Second

// hubCopy is copies from the hub that arrived together, and where their
// outcomes go, one a copy.
type hubCopy struct {
	copies []hub.Delivered
	done   chan []error
}

func newHubLink(ws *workspace.Workspace, opts HubOptions, logf func(string, ...any)) (*hubLink, error) {
	hosted, err := profile.Hosted(ws)
	if err != nil {
		return nil, err
	}
	return &hubLink{
		opts: opts, ws: ws, outbox: ws.Store.HubOutbox(), refused: ws.Store.HubRefused(), logf: logf,
		hosted: hosted, notHere: make(map[string]time.Time), judged: make(map[string]string), reported: make(map[string]bool),
		wake: make(chan struct{}, 1), arrivals: make(chan hubCopy), notes: make(chan hubNote, 64), presenceUp: make(chan struct{}, 1),
	}, nil
}

// agents are the agents this host runs, sorted.
func (h *hubLink) agents() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Sorted(maps.Keys(h.hosted))
}

// remote reports whether agent runs on another host: it has neither a
// profile in this workspace nor a registration of a spawn here. A name not
// known here is looked up again (an agent spawned a moment ago).
func (h *hubLink) remote(agent string) bool {
	if agent == mailbox.Operator || agent == mailbox.System {
		return false
	}
	h.mu.Lock()
	known := h.hosted[agent]
	at, elsewhere := h.notHere[agent]
	h.mu.Unlock()
	if known {
		return false
	}
	if elsewhere && time.Since(at) < notHereFresh {
		return true
	}
	if h.refresh()[agent] {
		return false
	}
	h.mu.Lock()
	h.notHere[agent] = time.Now()
	h.mu.Unlock()
	return true
}

// refresh reads the agents this host runs again.
func (h *hubLink) refresh() map[string]bool {
	hosted, err := profile.Hosted(h.ws)
	h.mu.Lock()
	defer h.mu.Unlock()
	if err != nil {
		h.logf("cannot read this host's agents: %v; keeping the last list", err)
		return maps.Clone(h.hosted)
	}
	h.hosted = hosted
	return maps.Clone(hosted)
}

// send puts the copy of record seq for an agent of another host in the
// outbox towards the hub; the loop syncs it with the inboxes (flush).
func (h *hubLink) send(seq int64, to string, m *mailbox.Message) error {
	_, err := h.outbox.Put(seq, to, m)
	if err != nil {
		return err
	}
	h.mu.Lock()
	h.put = true
	h.mu.Unlock()
	// The forwarder may start at once: the copy's data and its record are
	// on disk, and a copy whose name a crash loses is routed, and sent,
	// again under the same id.
	h.wakeForwarder()
	return nil
}

func (h *hubLink) wakeForwarder() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// flush syncs the copies put since the last flush, and wakes the forwarder.
func (h *hubLink) flush() error {
	h.mu.Lock()
	put := h.put
	h.put = false
	h.mu.Unlock()
	if !put {
		return nil
	}
	if err := h.outbox.Sync(); err != nil {
		h.mu.Lock()
		h.put = true // synced by the next flush, whatever it puts
		h.mu.Unlock()
		return err
	}
	h.wakeForwarder()
	return nil
}

// join joins the hub. Its refusals (the rules differ, an agent runs on
// another host) stop the start; a hub out of reach does not.
func (h *hubLink) join(ctx context.Context, rulesText []byte, timeout time.Duration) error {
	jctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := hub.Join(jctx, h.opts.URL, hub.JoinConfig{
		Team: h.opts.Team, Host: h.opts.Host, Agents: h.agents(), Origins: h.origins(), RulesText: rulesText, RootCAs: h.opts.CA,
		Trouble: h.setTrouble,
	})
	if err != nil {
		return err
	}
	h.conn.Store(conn)
	return nil
}

// refused reports whether a join failed because the hub refused this host,
// not because it was out of reach.
func refused(err error) bool {
	var mismatch *hub.RulesMismatch
	var claimed *hub.AgentClaimed
	return errors.As(err, &mismatch) || errors.As(err, &claimed) || errors.Is(err, hub.ErrMailTaken) ||
		errors.Is(err, hub.ErrBadConfig) || errors.Is(err, hub.ErrBadName) || errors.Is(err, hub.ErrDenied)
}

// run keeps the link up until ctx is done: it joins (again and again while
// the hub is away, or while it refuses this host), then forwards, receives
// and keeps this host's presence current.
func (h *hubLink) run(ctx context.Context, rulesText func() []byte) {
	for h.conn.Load() == nil {
		err := h.join(ctx, rulesText(), hubJoinTimeout)
		if err == nil {
			break
		}
		h.logf("cannot join the hub: %v; mail for other hosts waits in %s; trying again", err, h.outbox.Dir())
		wait := hubRetry * 5
		if refused(err) {
			wait = 30 * time.Second
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
	conn := h.conn.Load()
	defer conn.Close()
	h.logf("joined the hub as host %s, running %s", h.opts.Host, strings.Join(h.agents(), ", "))
	var wg sync.WaitGroup
	for _, part := range []func(context.Context, *hub.Conn){h.forward, h.receive, h.present} {
		wg.Go(func() { part(ctx, conn) })
	}
	wg.Wait()
}

// startHub joins the hub and keeps the link up until ctx is done, or stop.
// A hub that refuses this host (its rules differ, one of its agents runs on
// another host) stops the start; one out of reach is joined later.
func (m *Master) startHub(ctx context.Context) (stop func(), err error) {
	if m.hub, err = newHubLink(m.ws, m.opts.Hub, m.logf); err != nil {
		return nil, err
	}
	m.hub.teamChanged = m.work.markRules
	rulesText := func() []byte {
		data, _ := os.ReadFile(m.ws.RulesPath())
		return data
	}
	switch err := m.hub.join(ctx, rulesText(), hubJoinTimeout); {
	case refused(err):
		return nil, fmt.Errorf("join the hub as host %s: %w", m.opts.Hub.Host, err)
	case err != nil:
		m.logf("the hub is out of reach (%v): mail for other hosts waits in %s until it is back", err, m.hub.outbox.Dir())
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); m.hub.run(ctx, rulesText) }()
	return func() { cancel(); <-done }, nil
}

// hubArrivals is the channel of copies from the hub; nil, which never
// delivers, without a hub.
func (m *Master) hubArrivals() <-chan hubCopy {
	if m.hub == nil {
		return nil
	}
	return m.hub.arrivals
}

// hubNotes is the channel of the link's notices for the overseers; nil
// without a hub.
func (m *Master) hubNotes() <-chan hubNote {
	if m.hub == nil {
		return nil
	}
	return m.hub.notes
}

// tellOfHub delivers a notice of the link to the overseers.
func (m *Master) tellOfHub(n hubNote) {
	if told := m.tellOverseers(n.key, n.title, n.content, m.now().UTC()); len(told) > 0 {
		m.logf("%s; told %s", n.title, strings.Join(told, ", "))
	}
}

// note asks the loop to tell the overseers, once for key.
func (h *hubLink) note(key, title, content string) {
	h.mu.Lock()
	done := h.reported[key]
	h.reported[key] = true
	h.mu.Unlock()
	if done {
		return
	}
	select {
	case h.notes <- hubNote{key: key, title: title, content: content}:
	default:
		h.logf("%s (not told: too many notices at once)", title)
	}
}

// origins says where the helpers spawned here come from, for their claims.
func (h *hubLink) origins() map[string]hub.Origin {
	spawned, err := h.ws.Spawned()
	if err != nil {
		h.logf("cannot read the agents spawned here: %v", err)
		return nil
	}
	out := make(map[string]hub.Origin, len(spawned))
	for name, s := range spawned {
		out[name] = hub.Origin{Profile: s.Profile, Parent: s.Parent}
	}
	return out
}

// setTrouble keeps why mail from the hub does not flow (nil: it does), for
// the log and doctor; present writes it down at once.
func (h *hubLink) setTrouble(err error) {
	text := ""
	if err != nil {
		text = err.Error()
	}
	h.mu.Lock()
	was := h.trouble
	h.trouble = text
	h.mu.Unlock()
	switch {
	case text == was:
		return
	case text == "":
		h.logf("mail from the hub flows again")
	default:
		h.logf("cannot take mail from the hub: %s; this host shows as unreachable until it can", text)
	}
	h.lookNow()
}

// lookNow asks present for a look at the hub now, rather than at its next
// beat.
func (h *hubLink) lookNow() {
	select {
	case h.presenceUp <- struct{}{}:
	default:
	}
}

// mayLearn reports whether a copy from a sender this host's rules do not
// know may be tried again: a helper its host announced, not yet judged
// here. Presence is asked to look at once; a copy tried a few times and
// still unknown is refused.
func (h *hubLink) mayLearn(d hub.Delivered) bool {
	if d.Sender.Profile == "" || d.Deliveries >= learnTries {
		return false
	}
	h.mu.Lock()
	_, refused := h.judged[d.From]
	h.mu.Unlock()
	if refused {
		return false
	}
	h.lookNow()
	return true
}

// learnTries bounds the deliveries of a copy whose sender is a helper this
// host has not judged yet.
const learnTries = 4
