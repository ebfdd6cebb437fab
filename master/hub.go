package master

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"switchboard/hub"
	"switchboard/internal/safetext"
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

	mu      sync.Mutex
	hosted  map[string]bool      // the agents this host runs, as last read
	notHere map[string]time.Time // agents last found to run elsewhere, and when
	put     bool                 // the loop put copies not yet synced

	// teamChanged is called when other hosts spawned or closed agents.
	teamChanged func()
}

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
		opts: opts, ws: ws, outbox: ws.Store.HubOutbox(), logf: logf, hosted: hosted, notHere: make(map[string]time.Time),
		wake: make(chan struct{}, 1), arrivals: make(chan hubCopy),
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
	if err == nil {
		h.mu.Lock()
		h.put = true
		h.mu.Unlock()
	}
	return err
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
	select {
	case h.wake <- struct{}{}:
	default:
	}
	return nil
}

// join joins the hub. Its refusals (the rules differ, an agent runs on
// another host) stop the start; a hub out of reach does not.
func (h *hubLink) join(ctx context.Context, rulesText []byte, timeout time.Duration) error {
	jctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := hub.Join(jctx, h.opts.URL, hub.JoinConfig{
		Team: h.opts.Team, Host: h.opts.Host, Agents: h.agents(), RulesText: rulesText, RootCAs: h.opts.CA,
		Rejected: func(d hub.Delivered, err error) {
			h.logf("refused a copy of %s from host %s as from %s: %v", d.ID, d.Host, d.From, err)
		},
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

// forward publishes the copies waiting in the outbox, oldest first, and
// removes each once the hub has it. A publish that fails stops the round:
// the same copy goes first next time, so the order holds.
func (h *hubLink) forward(ctx context.Context, conn *hub.Conn) {
	const round = 64
	reported := make(map[string]bool)
	down := false
	for {
		copies, bad, err := h.outbox.Waiting(round)
		for _, path := range bad {
			if where, err := h.outbox.Refuse(path); err != nil {
				if !reported[path] {
					h.logf("%s does not read as a copy, and stays: %v", path, err)
					reported[path] = true
				}
			} else {
				h.logf("%s does not read as a copy: not sent; moved to %s", filepath.Base(path), where)
			}
		}
		if err != nil {
			h.logf("%v", err)
		}
		// Only a copy the log vouches for goes out: a file put in the outbox
		// by anyone else would be sent under its sender's name. A voucher
		// a round, as it reads the log as long as it was when opened.
		voucher := h.ws.Store.NewVoucher()
		stuck := err != nil // a copy could not be read: try again soon
		if err := voucher.Broken(); err != nil {
			h.logf("cannot read the log to check the copies for the hub: %v; they wait", err)
			copies, stuck = nil, true
		}
		sent := 0
		var ready []mailbox.HubCopy
		for _, c := range copies {
			m := c.Message
			if m.Via != "" || !voucher.Vouches(c.To, mailbox.FileName(m.DeliveredAt, m.Priority, m.ID), m) {
				where, err := h.outbox.Refuse(c.Path)
				if err != nil {
					h.logf("%v", err)
					break
				}
				h.logf("%s is not a copy this master routed (no record of the log vouches for it): not sent; moved to %s", filepath.Base(c.Path), where)
				sent++
				continue
			}
			ready = append(ready, c)
		}
		batch := make([]hub.Copy, 0, len(ready))
		for _, c := range ready {
			body, err := c.Message.Encode()
			if err != nil {
				h.logf("cannot encode #%d for %s: %v", c.Seq, c.To, err)
				break
			}
			batch = append(batch, hub.Copy{ID: c.Message.ID, To: c.To, From: c.Message.From, Body: body})
		}
		stored, err := conn.PublishAll(ctx, batch)
		for _, c := range ready[:stored] {
			if err := h.outbox.Done(c); err != nil {
				h.logf("%v", err)
				break
			}
			sent++
		}
		switch {
		case err != nil && !down && ctx.Err() == nil && stored < len(ready):
			h.logf("cannot hand #%d for %s to the hub: %v; it waits, with those after it", ready[stored].Seq, ready[stored].To, err)
			down = true
		case err == nil && down:
			h.logf("the hub takes mail again")
			down = false
		}
		voucher.Close()
		if sent == round {
			continue
		}
		wait := time.Minute // the outbox is empty: a put wakes it
		if len(copies) > sent || stuck {
			wait = hubRetry
		}
		select {
		case <-ctx.Done():
			return
		case <-h.wake:
		case <-time.After(wait):
		}
	}
}

// receive takes this host's agents' mail from the hub and hands the copies
// to the loop, as they come, until ctx is done.
func (h *hubLink) receive(ctx context.Context, conn *hub.Conn) {
	for ctx.Err() == nil {
		err := conn.ReceiveBatch(ctx, func(ctx context.Context, ds []hub.Delivered) []error {
			a := hubCopy{copies: ds, done: make(chan []error, 1)}
			select {
			case h.arrivals <- a:
			case <-ctx.Done():
				return nil // none stored: all come again
			}
			select {
			case errs := <-a.done:
				return errs
			case <-ctx.Done():
				return nil
			}
		})
		if ctx.Err() != nil {
			return
		}
		h.logf("taking mail from the hub stopped: %v; trying again", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(hubRetry):
		}
	}
}

// present keeps this host's agents and their states on the hub, and the
// whole team, as the hub shows it, in the workspace for the commands that
// list the team.
func (h *hubLink) present(ctx context.Context, conn *hub.Conn) {
	claimed := h.agents()
	tick := time.NewTicker(hub.Heartbeat)
	defer tick.Stop()
	for {
		if agents := slices.Sorted(maps.Keys(h.refresh())); !slices.Equal(agents, claimed) {
			if err := conn.SetAgents(ctx, agents); err != nil {
				h.logf("cannot tell the hub this host's agents (%v): %v", agents, err)
			} else {
				claimed = agents
			}
		}
		spawned, _ := h.ws.Spawned()
		states := make([]hub.AgentState, 0, len(claimed))
		for _, a := range claimed {
			st, ok, _ := h.ws.Store.ReadState(a)
			state := "down"
			if ok {
				state = st.State
			}
			sp := spawned[a]
			states = append(states, hub.AgentState{Agent: a, State: state, Profile: sp.Profile, Parent: sp.Parent})
		}
		if err := conn.Announce(ctx, states); err != nil && ctx.Err() == nil {
			h.logf("cannot tell the hub the states of this host's agents: %v", err)
		}
		if members, err := conn.Team(ctx); err == nil {
			h.writeTeam(members)
		}
		h.mirrorState(ctx, conn)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// mirrorState copies the team's shared state from the hub into this host's
// bulletin, which the agents' hooks show.
func (h *hubLink) mirrorState(ctx context.Context, conn *hub.Conn) {
	shared, err := conn.State(ctx)
	if err != nil {
		return
	}
	store := h.ws.Bulletin()
	local, err := store.ReadState()
	if err != nil {
		return
	}
	for key, value := range shared {
		if !json.Valid(value) || bytes.Equal(local[key], value) {
			continue
		}
		if err := store.SetState(key, value); err != nil {
			h.logf("cannot keep the shared value %q of the team here: %v", key, err)
		}
	}
}

// writeTeam keeps the team as the hub shows it, and reloads the rules when
// the agents other hosts spawned changed: the rules know those too.
func (h *hubLink) writeTeam(members []hub.Member) {
	team := workspace.HubTeam{Host: h.opts.Host, At: time.Now().UTC()}
	for _, m := range members {
		team.Members = append(team.Members, workspace.HubMember{Agent: m.Agent, Host: m.Host, State: m.State, Reachable: m.Reachable,
			Profile: m.Profile, Parent: m.Parent})
	}
	if err := h.ws.WriteHubTeam(team); err != nil {
		h.logf("cannot keep the team's hosts: %v", err)
		return
	}
	before, err := h.ws.HubSpawned()
	elsewhere := team.SpawnedElsewhere()
	same := func(a, b workspace.Spawned) bool { return a.Profile == b.Profile && a.Parent == b.Parent }
	if err == nil && maps.EqualFunc(before, elsewhere, same) {
		return
	}
	if err := h.ws.WriteHubSpawned(elsewhere); err != nil {
		h.logf("cannot keep the agents other hosts spawned: %v", err)
		return
	}
	if h.teamChanged != nil {
		h.teamChanged()
	}
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

// takeFromHub delivers copies the hub has for agents of this host, like
// local ones: vouched for by their marks, each written once whatever the
// times it comes, the inboxes synced before the hub hears they are done,
// and the agents' panes told.
func (m *Master) takeFromHub(a hubCopy) {
	errs := make([]error, len(a.copies))
	var msgs []*mailbox.Message
	var tos []string
	var marks []mailbox.NoticeMark
	var index []int // of each message, in a.copies
	for i, d := range a.copies {
		msg, err := m.checkFromHub(d)
		if err != nil {
			// A copy that is not one a master routed never will be: taken,
			// and said.
			m.logf("refused a copy of %s for %s from host %s: %v", d.ID, d.To, d.Host, err)
			continue
		}
		if m.hub.remote(d.To) {
			errs[i] = fmt.Errorf("%s does not run on this host", d.To)
			continue
		}
		msg.Via = d.Host
		msgs, tos, index = append(msgs, msg), append(tos, d.To), append(index, i)
		marks = append(marks, mailbox.MarkOf(d.To, msg, m.answered(msg)))
	}
	fail := func(err error, which []int) {
		for _, j := range which {
			errs[index[j]] = err
		}
	}
	all := make([]int, len(msgs))
	for j := range all {
		all[j] = j
	}
	if err := m.store.VouchCopies(marks); err != nil {
		m.logf("cannot record copies from the hub: %v; the hub keeps them", err)
		m.noteFull(err)
		fail(err, all)
		a.done <- errs
		return
	}
	written := make(map[string]bool)
	var fresh []int
	for j, msg := range msgs {
		now, err := m.store.DeliverUnsynced(tos[j], msg)
		if err != nil {
			m.logf("cannot deliver %s from host %s to %s: %v; the hub keeps it", msg.ID, msg.Via, tos[j], err)
			m.noteFull(err)
			fail(err, []int{j})
			continue
		}
		if now {
			written[tos[j]] = true
			fresh = append(fresh, j)
		}
	}
	if err := m.store.SyncInboxes(slices.Sorted(maps.Keys(written))); err != nil {
		m.logf("cannot sync the inboxes: %v; the hub keeps those copies", err)
		m.noteFull(err)
		fail(err, fresh)
		a.done <- errs
		return
	}
	a.done <- errs
	for _, j := range fresh {
		msg, to := msgs[j], tos[j]
		m.logf("#%d@%s %s → %s: %s", msg.Seq, msg.Via, msg.From, to, safetext.Line(msg.Title))
		rec := mailbox.Record{Seq: msg.Seq, Time: msg.DeliveredAt, Message: msg}
		m.panes.Announce(to, rec, wantsInterrupt(msg) && m.rules.MayInterruptAgent(msg.From, to))
	}
}

// answered is the request of this host's log that a response from another
// host answers: one this master routed to the response's sender (or any,
// for the operator). An answer is bound to its question where the question
// was routed, as bindAnswer binds one routed here.
func (m *Master) answered(msg *mailbox.Message) string {
	if msg.Type != mailbox.TypeResponse || msg.InReplyTo == "" {
		return ""
	}
	req, ok, err := m.log.Routed(msg.InReplyTo)
	if err != nil || !ok {
		return ""
	}
	if msg.From == mailbox.Operator || slices.Contains(req.Delivered, msg.From) {
		return msg.InReplyTo
	}
	return ""
}

// checkFromHub reads a copy from the hub and checks it as the master checks
// a message in an outbox, and as the sender's master routed it: a whole
// message, sent by the agent the hub says, for this recipient, numbered and
// dated by that master, and allowed by the rules (the same on every host).
func (m *Master) checkFromHub(d hub.Delivered) (*mailbox.Message, error) {
	msg, err := mailbox.Parse(d.Body)
	if err != nil {
		return nil, err
	}
	if err := msg.Validate(); err != nil {
		return nil, err
	}
	switch {
	case msg.ID != d.ID:
		return nil, fmt.Errorf("its id is not %s, the one it was sent under", d.ID)
	case msg.From != d.From:
		return nil, fmt.Errorf("it says it is from %s, but was sent as from %s", msg.From, d.From)
	case msg.Seq <= 0 || msg.DeliveredAt.IsZero():
		return nil, errors.New("its sender's master did not number and date it")
	case !slices.Contains(msg.To, d.To) && !slices.Contains(msg.To, mailbox.Broadcast):
		return nil, fmt.Errorf("it is not addressed to %s", d.To)
	}
	if decision := m.rules.Decide(msg.From, d.To); !decision.Allowed {
		return nil, fmt.Errorf("the rules do not let %s write to %s", msg.From, d.To)
	}
	return msg, nil
}

// hubArrivals is the channel of copies from the hub; nil, which never
// delivers, without a hub.
func (m *Master) hubArrivals() <-chan hubCopy {
	if m.hub == nil {
		return nil
	}
	return m.hub.arrivals
}
