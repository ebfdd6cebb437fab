package hub

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// JoinConfig describes the host joining a team.
type JoinConfig struct {
	// Team is the team's name; "main" when empty.
	Team string
	// Host is this host's name; when empty, the user name in the URL.
	Host string
	// Agents are the agents this host runs; no other host may hold one.
	Agents []string
	// Origins says, of the Agents spawned at run time, what from and under
	// whom: their claims carry it, for every host's rules.
	Origins map[string]Origin
	// RulesDigest identifies the team's communication rules; when empty it
	// is the SHA-256 of RulesText.
	RulesDigest string
	// RulesText is the rules file, shown line by line when the rules differ.
	RulesText []byte
	// Trouble, when set, hears why this host cannot take its mail, once it
	// is more than a hub restarting (a refused consumer, a denied
	// permission), and nil when mail flows again. It must not block.
	Trouble func(error)
	// RootCAs is a PEM file of the authorities that signed a TLS hub's
	// certificate; empty for the system's.
	RootCAs string
	// Credentials are those a NATS server of its operator's gave this host
	// (a credentials file's contents, or a user's nkey seed), when its URL
	// carries no password.
	Credentials []byte
	// ReadyWait bounds each request that opens the team's stream and
	// buckets; DefaultReadyWait when 0. A cluster of hubs leaves unanswered
	// a request made before it has elected the leader that would answer it:
	// a join unanswered for this long fails at once with ErrNotReady, to be
	// tried again, rather than waiting out its context.
	ReadyWait time.Duration

	// beat is the heartbeat interval; tests shorten it.
	beat time.Duration
}

// DefaultReadyWait is JoinConfig.ReadyWait when it is 0: a hub of its
// own answers a host's opening requests within milliseconds, one of a
// cluster that has elected its leaders too.
const DefaultReadyWait = time.Second

// Heartbeat is how often a host refreshes its presence; a host silent for
// three beats is unreachable.
const Heartbeat = 5 * time.Second

// mailKeep bounds how long undelivered mail waits on the hub, and dedupWindow
// how long a re-published copy is recognised and dropped.
const (
	mailKeep    = 30 * 24 * time.Hour
	dedupWindow = 10 * time.Minute
)

// Conn is one host's membership of a team on a hub. Its methods are safe for
// concurrent use.
type Conn struct {
	nc    *nats.Conn
	js    jetstream.JetStream
	names names
	host  string
	beat  time.Duration
	// readyWait bounds each request that opens the team's stream and
	// buckets (JoinConfig.ReadyWait).
	readyWait time.Duration
	// ackWait is the redelivery delay of an unacknowledged copy, as this
	// host's consumer last said.
	ackWait atomic.Int64
	trouble func(error)
	// stalled is set while this host cannot take its mail; its heartbeat
	// lapses meanwhile.
	stalled atomic.Bool

	presence, claims, rules, locks, shared *bucket

	// streams are the team's streams as this host opened them, by name: a
	// listing of a bucket's keys asks one of them for its subjects, with
	// no need to look the stream up first.
	streamsMu sync.Mutex
	streams   map[string]jetstream.Stream

	setMu  sync.Mutex // one SetAgents at a time: a claim is made once
	mu     sync.Mutex
	agents []string

	answers answerBox // the hub's answers to PublishAll

	senders claimCache
	reach   reachView  // which hosts are up, as this host last heard
	view    *view      // the team as this host last heard of it
	feed    *feedQueue // the hub's news of the team, not yet in view

	// arrived counts the copies taken from the hub; backlog is what the
	// hub last said of those unacknowledged, when arrived was as it says.
	arrived atomic.Uint64
	backlog backlogSeen

	// link is cancelled when the connection to the hub drops (and replaced
	// when it comes back), or when the hub refuses something for want of
	// permission (and replaced at once): a request in flight then fails
	// at once with the reason, instead of waiting for its deadline.
	linkMu     sync.Mutex
	link       context.Context
	linkCancel context.CancelCauseFunc

	// lost is closed when the connection closed for good, not by Close:
	// the server refused it, or answered a request with an error that
	// ends a connection. lostErr says why.
	lost     chan struct{}
	lostOnce sync.Once
	lostErr  error

	// closed ends when Close is called.
	closed context.Context
	close  context.CancelFunc
	wg     sync.WaitGroup
}

// Join connects host to the team on the hub at rawURL and takes its place:
// it makes sure the mail stream and the buckets exist, refuses to join when
// the team's rules differ (*RulesMismatch) or a live host already claims one
// of the agents (*AgentClaimed), announces the agents and starts the
// heartbeat. The connection then reconnects forever; ctx bounds only Join.
func Join(ctx context.Context, rawURL string, cfg JoinConfig) (*Conn, error) {
	cfg, err := cfg.withDefaults(rawURL)
	if err != nil {
		return nil, err
	}
	c, err := connect(ctx, rawURL, cfg)
	if err != nil {
		return nil, err
	}
	if err := c.followReach(); err != nil {
		c.nc.Close()
		return nil, fmt.Errorf("follow which hosts are reachable: %w", err)
	}
	if err := c.setUp(ctx, cfg); err != nil {
		c.nc.Close()
		return nil, err
	}
	c.wg.Add(1)
	go c.heartbeatLoop()
	c.watchTeam()
	return c, nil
}

// connect opens the connection of a Conn, which reconnects forever.
func connect(ctx context.Context, rawURL string, cfg JoinConfig) (*Conn, error) {
	var err error
	c := &Conn{
		names:     names{cfg.Team},
		host:      cfg.Host,
		beat:      cfg.beat,
		readyWait: cfg.ReadyWait,
		trouble:   cfg.Trouble,
		agents:    slices.Clone(cfg.Agents),
	}
	c.ackWait.Store(int64(ackWait))
	c.closed, c.close = context.WithCancel(context.Background())
	c.lost = make(chan struct{})
	c.senders.ttl = time.Second
	c.view = newView()
	c.feed = newFeedQueue()
	c.link, c.linkCancel = context.WithCancelCause(context.Background())
	opts := []nats.Option{
		nats.Name("switchboard " + cfg.Host),
		nats.CustomInboxPrefix(inboxPrefix(cfg.Host)),
		nats.MaxReconnects(-1),
		nats.CustomReconnectDelay(reconnectDelay),
		// No buffer while disconnected: a publish fails at once, and the
		// caller keeps the copy on disk and retries it in order.
		nats.ReconnectBufSize(-1),
		nats.PingInterval(cfg.beat),
		nats.MaxPingsOutstanding(3),
		nats.NoCallbacksAfterClientClose(),
		nats.DisconnectErrHandler(func(*nats.Conn, error) { c.cutLink(errLinkDown, false) }),
		nats.ReconnectHandler(func(*nats.Conn) {
			c.cutLink(nil, true)
			c.feed.missed() // news told while away is lost
			c.reach.forget()
			if !c.stalled.Load() {
				_ = c.beatOnce() // a hub that started again hears this host at once
			}
		}),
		nats.ClosedHandler(func(nc *nats.Conn) {
			// Not called after Close (NoCallbacksAfterClientClose).
			c.lostOnce.Do(func() {
				c.lostErr = cmp.Or(nc.LastError(), errLinkDown)
				close(c.lost)
			})
		}),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			if errors.Is(err, nats.ErrPermissionViolation) {
				c.cutLink(fmt.Errorf("%w: %w", ErrDenied, err), true)
			}
		}),
	}
	if d, ok := ctx.Deadline(); ok {
		opts = append(opts, nats.Timeout(time.Until(d)))
	}
	if cfg.RootCAs != "" {
		opts = append(opts, nats.RootCAs(cfg.RootCAs))
	}
	creds, err := credentialsOption(cfg.Credentials)
	if err != nil {
		return nil, err
	}
	if creds != nil {
		opts = append(opts, creds)
	}
	c.nc, err = nats.Connect(rawURL, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: connect as host %s: %w; check that the hub runs and that this URL is the one it gave for this host", ErrUnreachable, cfg.Host, err)
	}
	c.answers.nc = c.nc
	// The team's API is reached under a prefix of the host's own account
	// (names.api), which the hub carries to the team's.
	c.js, err = jetstream.NewWithAPIPrefix(c.nc, c.names.api())
	if err != nil {
		c.nc.Close()
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	return c, nil
}

func (cfg JoinConfig) withDefaults(rawURL string) (JoinConfig, error) {
	// A cluster of hubs is a list of URLs, one a node, comma-separated.
	for _, one := range strings.Split(rawURL, ",") {
		u, err := url.Parse(strings.TrimSpace(one))
		if err != nil {
			// The parser's error quotes the URL, password included.
			return cfg, fmt.Errorf("%w: the hub URL cannot be parsed: ask the hub for this host's URL again", ErrBadConfig)
		}
		if cfg.Host == "" && u.User != nil {
			cfg.Host = u.User.Username()
		}
		if u.User != nil && u.User.Username() != cfg.Host {
			return cfg, fmt.Errorf("%w: the URL is host %s's, not %s's: ask the hub for this host's URL", ErrBadConfig, u.User.Username(), cfg.Host)
		}
	}
	if cfg.Team == "" {
		cfg.Team = "main"
	}
	if err := checkName("team", cfg.Team); err != nil {
		return cfg, err
	}
	if err := checkName("host", cfg.Host); err != nil {
		return cfg, err
	}
	cfg.Agents = slices.Clone(cfg.Agents)
	if err := checkAgents(cfg.Agents); err != nil {
		return cfg, err
	}
	if cfg.RulesDigest == "" {
		sum := sha256.Sum256(cfg.RulesText)
		cfg.RulesDigest = hex.EncodeToString(sum[:])
	}
	if cfg.beat <= 0 {
		cfg.beat = Heartbeat
	}
	if cfg.ReadyWait <= 0 {
		cfg.ReadyWait = DefaultReadyWait
	}
	return cfg, nil
}

func checkAgents(agents []string) error {
	for i, a := range agents {
		if err := checkName("agent", a); err != nil {
			return err
		}
		if slices.Contains(agents[:i], a) {
			return fmt.Errorf("%w: agent %s is listed twice", ErrBadConfig, a)
		}
	}
	return nil
}

// reconnectDelay backs off from 50 ms to 2 s, so a restarted hub is found
// quickly and a dead one is not hammered.
func reconnectDelay(attempts int) time.Duration {
	d := 50 * time.Millisecond << min(attempts, 6)
	return min(d, 2*time.Second)
}

// setUp opens the stream and buckets, checks the rules, claims the agents
// and has the hub make the host's consumer.
func (c *Conn) setUp(ctx context.Context, cfg JoinConfig) error {
	ctx, cancel := c.linked(ctx)
	defer cancel()
	if err := c.checkStreams(ctx, []jetstream.StreamConfig{c.names.mailStreamConfig()}); err != nil {
		return err
	}
	if err := c.openBuckets(ctx, c.names.buckets()); err != nil {
		return err
	}
	// The beat first, as far as the hub: a host joining at the same moment
	// with other rules sees this one up, and is refused rather than taking
	// the team's rules.
	err := c.beatOnce()
	if err == nil {
		err = c.nc.FlushWithContext(ctx)
	}
	if err != nil {
		return c.explain(ctx, err, "tell the hub this host is up")
	}
	if err := c.checkRules(ctx, cfg.RulesDigest, cfg.RulesText); err != nil {
		return err
	}
	if err := c.claim(ctx, cfg.Agents, cfg.Origins); err != nil {
		return err
	}
	states := make([]AgentState, len(cfg.Agents))
	for i, a := range cfg.Agents {
		states[i] = AgentState{Agent: a}
	}
	if err := c.announce(ctx, states); err != nil {
		return err
	}
	if err := c.makeConsumer(ctx); err != nil {
		return c.explain(ctx, err, "have the hub make this host's mail consumer")
	}
	return nil
}

// checkStreams refuses to join a hub whose streams are not as the hub
// makes them (checkStream): one host could wipe another's keys there.
func (c *Conn) checkStreams(ctx context.Context, want []jetstream.StreamConfig) error {
	for _, w := range want {
		var st jetstream.Stream
		err := c.ask(ctx, func(ctx context.Context) (err error) {
			st, err = c.js.Stream(ctx, w.Name)
			return err
		})
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			err = errNotPrepared
		}
		if err != nil {
			return c.explain(ctx, err, "open "+w.Name)
		}
		if err := checkRelease(st.CachedInfo().Config); err != nil {
			return err
		}
		if err := checkStream(st.CachedInfo().Config, w); err != nil {
			return fmt.Errorf("%w; %s", err, unsafeHint)
		}
		c.streamsMu.Lock()
		if c.streams == nil {
			c.streams = make(map[string]jetstream.Stream)
		}
		c.streams[w.Name] = st
		c.streamsMu.Unlock()
	}
	return nil
}

// stream is the team's stream of that name: as opened when this host
// joined, else looked up.
func (c *Conn) stream(ctx context.Context, name string) (jetstream.Stream, error) {
	c.streamsMu.Lock()
	st, ok := c.streams[name]
	c.streamsMu.Unlock()
	if ok {
		return st, nil
	}
	return c.js.Stream(ctx, name)
}

// unsafeHint says what makes a hub's streams right.
const unsafeHint = "a hub of this version makes them right when it starts; on a NATS server of your own, run switchboard hub serve (or prepare) again, of this version"

// openBuckets opens the named buckets of the team, once their streams
// are as the hub makes them.
func (c *Conn) openBuckets(ctx context.Context, buckets []string) error {
	kvs := map[string]**bucket{
		c.names.presence(): &c.presence, c.names.claims(): &c.claims,
		c.names.rules(): &c.rules, c.names.locks(): &c.locks, c.names.shared(): &c.shared,
	}
	want := make(map[string]jetstream.StreamConfig)
	for _, cfg := range c.names.bucketStreams() {
		want[cfg.Name] = cfg
	}
	for _, name := range buckets {
		if err := c.checkStreams(ctx, []jetstream.StreamConfig{want[kvStream(name)]}); err != nil {
			return err
		}
		var kv jetstream.KeyValue
		err := c.ask(ctx, func(ctx context.Context) (err error) {
			kv, err = c.js.KeyValue(ctx, name)
			return err
		})
		if errors.Is(err, jetstream.ErrBucketNotFound) {
			err = errNotPrepared
		}
		if err != nil {
			return c.explain(ctx, err, "open bucket "+name)
		}
		*kvs[name] = &bucket{c: c, kv: kv, name: name}
	}
	return nil
}

// errNotPrepared is a server without the team's stream and buckets, which
// no host may make: a hub whose cluster has too few nodes up yet, or a NATS
// server of its operator's beside which switchboard hub serve has not run.
// A cluster places each of them on as many nodes as keep the team's mail:
// on its very first start, it waits for all of them, not for a quorum.
var errNotPrepared = fmt.Errorf("%w: the team's stream and buckets are not on the hub yet (a cluster of hubs makes them once as many of its nodes as keep the team's mail are up, the first time every one of them; on a NATS server of your own, run the switchboard hub serve line that switchboard hub config printed)", ErrNotReady)

// ask makes one request of the opening of the team's stream and buckets,
// and gives it c.readyWait to be answered: JetStream answers no request
// made before its cluster elected the leader that would answer it, not
// even to say so, so a request unanswered that long is the hub not ready
// yet. A cluster without a leader for long enough says so itself (an
// answer of code 503).
func (c *Conn) ask(ctx context.Context, request func(context.Context) error) error {
	rctx, cancel := context.WithTimeout(ctx, c.readyWait)
	defer cancel()
	err := request(rctx)
	var api *jetstream.APIError
	switch {
	case err == nil:
		return nil
	case ctx.Err() == nil && errors.Is(rctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%w: no answer within %s (a cluster of hubs answers once it has elected its leaders)", ErrNotReady, c.readyWait)
	case errors.As(err, &api) && api.Code == 503:
		return fmt.Errorf("%w: %w", ErrNotReady, err)
	}
	return err
}

// cutLink ends the current link with cause (if any), and starts a new one
// when the connection is up.
func (c *Conn) cutLink(cause error, up bool) {
	c.linkMu.Lock()
	defer c.linkMu.Unlock()
	if cause != nil {
		c.linkCancel(cause)
	}
	if up && c.link.Err() != nil {
		c.link, c.linkCancel = context.WithCancelCause(context.Background())
	}
}

// linked returns ctx, also cancelled when the link is cut; its cause says
// why.
func (c *Conn) linked(ctx context.Context) (context.Context, context.CancelFunc) {
	c.linkMu.Lock()
	link := c.link
	c.linkMu.Unlock()
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(link, func() { cancel(context.Cause(link)) })
	return ctx, func() { stop(); cancel(nil) }
}

var errLinkDown = errors.New("connection to the hub lost")

// explain adds what the host was doing to err, and the reason a request
// made with a linked ctx was cut short.
func (c *Conn) explain(ctx context.Context, err error, doing string) error {
	cause := context.Cause(ctx)
	if errors.Is(cause, ErrDenied) {
		return fmt.Errorf("%s: %w; check that the team name is the hub's and the URL is this host's", doing, cause)
	}
	if errors.Is(err, ErrNotReady) {
		return fmt.Errorf("%s: %w", doing, err)
	}
	if errors.Is(cause, errLinkDown) {
		err = fmt.Errorf("%w: %w", cause, err)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, errLinkDown) || errors.Is(err, nats.ErrTimeout) ||
		errors.Is(err, nats.ErrNoResponders) || errors.Is(err, nats.ErrConnectionClosed) ||
		errors.Is(err, nats.ErrReconnectBufExceeded) || !c.nc.IsConnected() {
		return fmt.Errorf("%w: %s: %w; keep what is unsent and try again when the hub is back", ErrUnreachable, doing, err)
	}
	return fmt.Errorf("%s: %w", doing, err)
}

// Lost is closed when the connection to the hub closed for good, other
// than by Close: the server ended it (a request it answered with an error
// that ends a connection, credentials it no longer takes). This Conn can
// do nothing more; its owner closes it, and joins again. LostErr says why.
func (c *Conn) Lost() <-chan struct{} { return c.lost }

// LostErr is why the connection closed for good, once Lost is closed.
func (c *Conn) LostErr() error {
	select {
	case <-c.lost:
		return c.lostErr
	default:
		return nil
	}
}

// Host is the name this Conn joined as.
func (c *Conn) Host() string { return c.host }

// Close stops the heartbeat and disconnects. It says no goodbye: the host's
// agents become unreachable when the heartbeat expires, and mail for them
// waits on the hub.
func (c *Conn) Close() error {
	c.close()
	c.wg.Wait()
	c.nc.Close()
	return nil
}

// Sentinel errors of the package.
var (
	// ErrBadConfig is a configuration a host cannot join with.
	ErrBadConfig = errors.New("hub: bad configuration")
	// ErrBadName is a host, team or agent name outside the allowed charset.
	ErrBadName = errors.New("hub: bad name")
	// ErrUnreachable is a hub that could not be reached or did not answer.
	ErrUnreachable = errors.New("hub: unreachable")
	// ErrNotReady is a hub that is up, or nearly, but cannot take a host
	// yet: a cluster of hubs electing its leaders, or making the team's
	// stream and buckets. It is an ErrUnreachable that is worth trying
	// again within a second.
	ErrNotReady = fmt.Errorf("%w (not ready yet)", ErrUnreachable)
	// ErrDenied is a request the hub refused for want of permission.
	ErrDenied = errors.New("hub: permission denied")
	// ErrUnsafeHub is a hub whose streams would let one host undo
	// another's keys or mail.
	ErrUnsafeHub = errors.New("hub: unsafe stream settings")
	// ErrOtherRelease is a hub prepared by another release of switchboard
	// than the host's.
	ErrOtherRelease = errors.New("hub: another release")
	// ErrClosed is a Conn used after Close.
	ErrClosed = errors.New("hub: connection closed")
)
