package hublink

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"switchboard/hub"
	"switchboard/internal/watch"
	"switchboard/mailbox"
	"switchboard/master/link"
	"switchboard/profile"
	"switchboard/rules"
	"switchboard/workspace"
)

// retry is how long the link waits before it tries the hub again: to join,
// to publish what waits, or to take mail.
const retry = time.Second

// joinTimeout bounds an attempt to join; the first, at start, too: a hub
// that does not answer by then is joined in the background, and meanwhile
// mail for other hosts waits on disk.
const joinTimeout = 10 * time.Second

// A hub not ready yet (a cluster of hubs electing its leaders, or making
// the team's stream) is tried again soon: notReadyRetry after the first
// such attempt, twice as long after each next, up to notReadyRetryMost.
// It leaves each opening request hub.DefaultReadyWait to be answered, and
// twice as long after each next of more than notReadyPatience such
// attempts in a row, up to joinTimeout: a hub merely slow is joined too.
const (
	notReadyRetry     = 250 * time.Millisecond
	notReadyRetryMost = 2 * time.Second
	notReadyPatience  = 3
)

// readyWait is how long an attempt to join leaves each opening request to
// be answered, after notReady attempts in a row found the hub not ready.
func readyWait(notReady int) time.Duration {
	return min(hub.DefaultReadyWait<<min(max(notReady-notReadyPatience, 0), 4), joinTimeout)
}

// notReadyWait is how long the link waits before it joins again, after
// notReady attempts in a row found the hub not ready.
func notReadyWait(notReady int) time.Duration {
	return min(notReadyRetry<<min(max(notReady-1, 0), 4), notReadyRetryMost)
}

// Link is a master's link to the hub; New makes one.
type Link struct {
	settings workspace.HubSettings
	ws       *workspace.Workspace
	outbox   *mailbox.HubOutbox
	env      link.Env

	wake     chan struct{}     // a copy was put in the outbox
	arrivals chan link.Arrival // copies from the hub, for the master
	notes    chan link.Note    // for the overseers
	look     chan struct{}     // asks presence for a look at the hub now
	conn     atomic.Pointer[hub.Conn]

	mu       sync.Mutex
	hosted   map[string]bool      // the agents this host runs, as last read
	notHere  map[string]time.Time // agents last found to run elsewhere, and when
	put      bool                 // copies put not yet synced
	judged   map[string]string    // other hosts' helpers refused here, with why
	trouble  string               // why mail from the hub does not flow; "" when it does
	hostedOf string               // the stamp when hosted was read

	// filesChanged counts the changes of the folders whose files the
	// stamp fingerprints; stamped is the stamp as of stampedAt of them.
	filesChanged atomic.Uint64
	stamped      string
	stampedAt    uint64

	backlogWas    string // the status the bulletin had before the backlog degraded it; presence's alone
	backlogMarked *bool  // whether the bulletin says the backlog degrades it, as presence last saw; nil before

	// What presence judged of other hosts' helpers, and of what (the team's
	// helpers and rulesStamp), so that it judges again only on a change;
	// and the team it last wrote. Presence's alone.
	verdicts  spawnVerdicts
	judgedOf  string
	wroteTeam *workspace.HubTeam

	// states are this host's agents' states, each file read again only
	// when it changed. Presence's alone. statesDue says the master saw a
	// state file change since presence last read them.
	states    watch.Remembered[string]
	statesDue atomic.Bool

	// The shared values last copied into the bulletin, and when. Presence's alone.
	mirrored   map[string][]byte
	mirroredAt time.Time
}

var _ link.Link = (*Link)(nil)

// notHereFresh is how long an agent found to run on another host is taken
// to, before this host's agents are read again for it. A name never looked
// up (an agent spawned a moment ago) is always read.
const notHereFresh = time.Second

// New makes a link to the hub the settings name; Start joins it for a
// master.
func New(settings workspace.HubSettings) *Link {
	return &Link{
		settings: settings,
		env:      link.Env{Logf: func(string, ...any) {}, RulesChanged: func() {}},
		hosted:   make(map[string]bool), notHere: make(map[string]time.Time), judged: make(map[string]string),
		wake: make(chan struct{}, 1), arrivals: make(chan link.Arrival), notes: make(chan link.Note, 64), look: make(chan struct{}, 1),
	}
}

// Host is this host's name in the team.
func (l *Link) Host() string { return l.settings.Host }

// Team is the team's name on the hub ("" for the hub's default).
func (l *Link) Team() string { return l.settings.Team }

// Arrivals are the copies from the hub, for the master to deliver.
func (l *Link) Arrivals() <-chan link.Arrival { return l.arrivals }

// Notes are the link's notices for the overseers.
func (l *Link) Notes() <-chan link.Note { return l.notes }

func (l *Link) logf(format string, args ...any) { l.env.Logf(format, args...) }

// agents are the agents this host runs, sorted.
func (l *Link) agents() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Sorted(maps.Keys(l.hosted))
}

// Remote reports whether agent runs on another host: it has neither a
// profile in this workspace nor a registration of a spawn here. A name not
// known here is looked up again (an agent spawned a moment ago).
func (l *Link) Remote(agent string) bool {
	if agent == mailbox.Operator || agent == mailbox.System || l.ws == nil {
		return false
	}
	l.mu.Lock()
	known := l.hosted[agent]
	at, elsewhere := l.notHere[agent]
	l.mu.Unlock()
	if known {
		return false
	}
	if elsewhere && time.Since(at) < notHereFresh {
		return true
	}
	if l.refresh(true)[agent] {
		return false
	}
	l.mu.Lock()
	l.notHere[agent] = time.Now()
	l.mu.Unlock()
	return true
}

// refresh reads the agents this host runs again, when their profiles or
// the registry of spawns changed since the last read; now looks at the
// files, not only at what fsnotify told of them.
func (l *Link) refresh(now bool) map[string]bool {
	stamp := l.stamp(now)
	l.mu.Lock()
	if stamp == l.hostedOf {
		defer l.mu.Unlock()
		return maps.Clone(l.hosted)
	}
	l.mu.Unlock()
	hosted, err := profile.Hosted(l.ws)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		l.logf("cannot read this host's agents: %v; keeping the last list", err)
		return maps.Clone(l.hosted)
	}
	l.hosted, l.hostedOf = hosted, stamp
	return maps.Clone(hosted)
}

// Send puts the copy of record seq for an agent of another host in the
// outbox towards the hub; Flush syncs it.
func (l *Link) Send(seq int64, to string, m *mailbox.Message) error {
	if _, err := l.outbox.Put(seq, to, m); err != nil {
		return err
	}
	l.mu.Lock()
	l.put = true
	l.mu.Unlock()
	// The forwarder may start at once: the copy's data and its record are
	// on disk, and a copy whose name a crash loses is routed, and sent,
	// again under the same id.
	l.wakeForwarder()
	return nil
}

func (l *Link) wakeForwarder() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Flush syncs the copies put since the last Flush, and wakes the forwarder.
func (l *Link) Flush() error {
	l.mu.Lock()
	put := l.put
	l.put = false
	l.mu.Unlock()
	if !put {
		return nil
	}
	if err := l.outbox.Sync(); err != nil {
		l.mu.Lock()
		l.put = true // synced by the next Flush, whatever it puts
		l.mu.Unlock()
		return err
	}
	l.wakeForwarder()
	return nil
}

// join joins the hub. Its refusals (the rules differ, an agent runs on
// another host) stop the start; a hub out of reach does not.
func (l *Link) join(ctx context.Context, ready time.Duration) error {
	jctx, cancel := context.WithTimeout(ctx, joinTimeout)
	defer cancel()
	rulesText, _ := rules.ReadFile(l.ws.RulesPath())
	conn, err := hub.Join(jctx, l.settings.URL, hub.JoinConfig{
		Team: l.settings.Team, Host: l.settings.Host, Agents: l.agents(), Origins: l.origins(), RulesText: rulesText, RootCAs: l.settings.CA, Credentials: []byte(l.settings.Credentials),
		Trouble: l.setTrouble, ReadyWait: ready,
	})
	if err != nil {
		return err
	}
	l.conn.Store(conn)
	return nil
}

// refused reports whether a join failed because the hub refused this host,
// not because it was out of reach.
func refused(err error) bool {
	var mismatch *hub.RulesMismatch
	var claimed *hub.AgentClaimed
	return errors.As(err, &mismatch) || errors.As(err, &claimed) ||
		errors.Is(err, hub.ErrBadConfig) || errors.Is(err, hub.ErrBadName) || errors.Is(err, hub.ErrDenied) || errors.Is(err, hub.ErrUnsafeHub) || errors.Is(err, hub.ErrOtherRelease)
}

// Start joins the hub and keeps the link up until ctx is done, or stop. A
// hub that refuses this host stops the start; one out of reach is joined
// later.
func (l *Link) Start(ctx context.Context, env link.Env) (stop func(), err error) {
	if env.Workspace == nil {
		return nil, errors.New("a link starts for a master's workspace")
	}
	if env.Logf != nil {
		l.env.Logf = env.Logf
	}
	if env.RulesChanged != nil {
		l.env.RulesChanged = env.RulesChanged
	}
	l.ws, l.outbox = env.Workspace, env.Workspace.Store.HubOutbox()
	l.conn.Store(nil) // a link started again joins again
	ctx, cancel := context.WithCancel(ctx)
	watched := l.watchFiles(ctx)
	unwatch := func() { cancel(); <-watched }
	stamp := l.stamp(true)
	hosted, err := profile.Hosted(l.ws)
	if err != nil {
		unwatch()
		return nil, err
	}
	l.mu.Lock()
	l.hosted, l.hostedOf = hosted, stamp
	l.mu.Unlock()
	switch err := l.join(ctx, readyWait(0)); {
	case refused(err):
		unwatch()
		return nil, fmt.Errorf("join the hub as host %s: %w", l.settings.Host, err)
	case errors.Is(err, hub.ErrNotReady):
		l.logf("the hub is not ready yet (%v): joining as soon as it is; mail for other hosts waits in %s meanwhile", err, l.outbox.Dir())
	case err != nil:
		l.logf("the hub is out of reach (%v): mail for other hosts waits in %s until it is back", err, l.outbox.Dir())
	}
	done := make(chan struct{})
	go func() { defer close(done); l.run(ctx) }()
	return func() { unwatch(); <-done }, nil
}

// run keeps the link up until ctx is done: it joins (again and again while
// the hub is away, or while it refuses this host), then forwards, receives
// and keeps this host's presence current; when the hub ends the connection
// for good, it joins again, and mail for other hosts waits on disk
// meanwhile.
func (l *Link) run(ctx context.Context) {
	var awaySince time.Time
	for {
		conn := l.conn.Load()
		if conn == nil {
			if conn = l.joinUntilJoined(ctx); conn == nil {
				return
			}
		}
		if awaySince.IsZero() {
			l.logf("joined the hub as host %s, running %s", l.settings.Host, strings.Join(l.agents(), ", "))
		} else {
			l.logf("joined the hub again as host %s, after %s away", l.settings.Host, time.Since(awaySince).Round(time.Second))
		}
		lost := l.serve(ctx, conn)
		conn.Close()
		l.conn.Store(nil)
		if !lost {
			return
		}
		awaySince = time.Now()
		l.logf("the hub closed this host's connection (%v): joining again; mail for other hosts waits in %s meanwhile", conn.LostErr(), l.outbox.Dir())
	}
}

// joinUntilJoined joins the hub, trying again, each time a little later,
// while it is away or refuses this host, and within a second or two while
// it is not ready yet; nil when ctx ends first.
func (l *Link) joinUntilJoined(ctx context.Context) *hub.Conn {
	away, notReady := 0, 0 // attempts in a row that found the hub so
	var toldNotReady time.Time
	for {
		err := l.join(ctx, readyWait(notReady))
		if err == nil {
			return l.conn.Load()
		}
		var wait time.Duration
		switch {
		case refused(err):
			away, notReady = 0, 0
			wait = 30 * time.Second
		case errors.Is(err, hub.ErrNotReady):
			away = 0
			notReady++
			wait = notReadyWait(notReady)
		default:
			notReady = 0
			wait = min(retry<<min(away, 5), 30*time.Second)
			away++
		}
		// A hub not ready is tried often: said once, and again only
		// every notReadyTold while it stays so.
		if notReady == 0 || time.Since(toldNotReady) >= notReadyTold {
			l.logf("cannot join the hub: %v; mail for other hosts waits in %s; trying again", err, l.outbox.Dir())
			if notReady > 0 {
				toldNotReady = time.Now()
			}
		}
		if watch.Sleep(ctx, wait) != nil {
			return nil
		}
	}
}

// notReadyTold is how often the log says again that the hub is not ready.
const notReadyTold = 30 * time.Second

// serve forwards, receives and keeps presence on conn until ctx is done
// or the hub ends the connection for good (lost).
func (l *Link) serve(ctx context.Context, conn *hub.Conn) (lost bool) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-conn.Lost():
			cancel()
		case <-ctx.Done():
		}
	}()
	var wg sync.WaitGroup
	for _, part := range []func(context.Context, *hub.Conn){l.forward, l.receive, l.present} {
		wg.Go(func() { part(ctx, conn) })
	}
	wg.Wait()
	return conn.LostErr() != nil
}

// note asks the master to tell the overseers; the master tells each key
// once.
func (l *Link) note(key, title, content string) {
	select {
	case l.notes <- link.Note{Key: key, Title: title, Content: content}:
	default:
		l.logf("%s (not told: too many notices at once)", title)
	}
}

// origins says where the helpers spawned here come from, for their claims.
func (l *Link) origins() map[string]hub.Origin {
	spawned, err := l.ws.Spawned()
	if err != nil {
		l.logf("cannot read the agents spawned here: %v", err)
		return nil
	}
	out := make(map[string]hub.Origin, len(spawned))
	for name, s := range spawned {
		out[name] = hub.Origin{Profile: s.Profile, Parent: s.Parent}
	}
	return out
}

// setTrouble keeps why mail from the hub does not flow (nil: it does), for
// the log and doctor; presence writes it down at once.
func (l *Link) setTrouble(err error) {
	text := ""
	if err != nil {
		text = err.Error()
	}
	l.mu.Lock()
	was := l.trouble
	l.trouble = text
	l.mu.Unlock()
	switch {
	case text == was:
		return
	case text == "":
		l.logf("mail from the hub flows again")
	default:
		l.logf("cannot take mail from the hub: %s; this host shows as unreachable until it can", text)
	}
	l.lookNow()
}

// StatesChanged has presence read this host's agents' states, and tell the
// hub those that changed, now.
func (l *Link) StatesChanged() {
	l.statesDue.Store(true)
	l.lookNow()
}

// lookNow asks presence for a look at the hub now, rather than at its next
// beat.
func (l *Link) lookNow() {
	select {
	case l.look <- struct{}{}:
	default:
	}
}

// MayLearn reports whether a copy from a sender this host's rules do not
// know may be tried again: a helper its host announced, not yet judged
// here. Presence is asked to look at once; a copy tried a few times and
// still unknown is refused.
func (l *Link) MayLearn(c link.Copy) bool {
	if c.Profile == "" || c.Deliveries >= learnTries {
		return false
	}
	l.mu.Lock()
	_, refused := l.judged[c.From]
	l.mu.Unlock()
	if refused {
		return false
	}
	l.lookNow()
	return true
}

// learnTries bounds the deliveries of a copy whose sender is a helper this
// host has not judged yet.
const learnTries = 4
