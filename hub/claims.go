package hub

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"switchboard/internal/watch"
	"switchboard/mailbox"
)

// A claim says which host runs an agent. A host writes two keys, and only
// under its own name: held.<agent>.<host> when it takes the agent, and
// left.<agent>.<host> when it lets it go. Their revisions and times are the
// hub's, so no host can date a claim of its own before another's: of the
// claims held at a moment, the one the hub stored first holds the agent
// then. A copy is its sender's when the publishing host held the sender at
// the moment the hub stored the copy (Receive checks it), which lets the
// copies an agent sent before its host let it go arrive, and no others.

// Claim is one host's claim of an agent.
type Claim struct {
	Agent, Host string
	// Profile and Parent are set for an agent spawned at run time: what it
	// was spawned from, and under whom.
	Profile, Parent string
	// Since is when the hub stored the claim, Rev its place in the hub's
	// order; Until is when the host let the agent go, zero while it holds
	// it.
	Since time.Time
	Rev   uint64
	Until time.Time
}

// Held reports whether the host still claims the agent.
func (cl Claim) Held() bool { return cl.Until.IsZero() }

func (cl Claim) heldAt(t time.Time) bool {
	return !t.Before(cl.Since) && (cl.Until.IsZero() || t.Before(cl.Until))
}

// Origin is what an agent spawned at run time was spawned from, and under
// whom: its claim carries it, so that every host's rules can place it.
type Origin struct{ Profile, Parent string }

type claimValue struct {
	Profile string `json:"profile,omitempty"`
	Parent  string `json:"parent,omitempty"`
}

// holderAt is, of the claims held at t, the one the hub stored first.
func holderAt(claims []Claim, t time.Time) (Claim, bool) {
	return first(claims, func(cl Claim) bool { return cl.heldAt(t) })
}

// holderNow is, of the claims still held, the one the hub stored first.
func holderNow(claims []Claim) (Claim, bool) {
	return first(claims, Claim.Held)
}

func first(claims []Claim, ok func(Claim) bool) (Claim, bool) {
	var best Claim
	found := false
	for _, cl := range claims {
		if ok(cl) && (!found || cl.Rev < best.Rev) {
			best, found = cl, true
		}
	}
	return best, found
}

// claimable reports whether a host may claim name: an agent name, not one
// of switchboard's own, nor the person, whom every host has.
func claimable(name string) bool {
	return mailbox.ValidateAgentName(name) == nil && name != Person
}

func claimKey(kind, agent, host string) string { return kind + "." + agent + "." + host }

const (
	kindHeld = "held"
	kindLeft = "left"
)

// claimBook reads and writes the claims bucket.
type claimBook struct {
	c  *Conn
	kv *bucket
	n  names
}

// read returns the claims of the agents matching agent ("*" for all), by
// agent, each list in the hub's order, as the leader of the bucket holds
// them.
func (b claimBook) read(ctx context.Context, agent string) (map[string][]Claim, error) {
	keys, err := b.c.keys(ctx, b.n.claims(), "*."+agent+".*")
	if err != nil {
		return nil, err
	}
	entries := make([]jetstream.KeyValueEntry, 0, len(keys))
	for _, k := range keys {
		e, err := leaderGet(ctx, b.c.nc, b.n, b.n.claims(), k)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		entries = append(entries, e)
	}
	return claimsOfEntries(entries), nil
}

// claimsOfEntries makes the claims, by agent, each list in the hub's
// order, of entries of the claims bucket.
func claimsOfEntries(entries []jetstream.KeyValueEntry) map[string][]Claim {
	type id struct{ agent, host string }
	held := make(map[id]Claim)
	left := make(map[id]jetstream.KeyValueEntry)
	for _, e := range entries {
		kind, rest, _ := strings.Cut(e.Key(), ".")
		name, host, ok := strings.Cut(rest, ".")
		if !ok || !validName(name) || !validName(host) {
			continue
		}
		switch kind {
		case kindHeld:
			var v claimValue
			_ = json.Unmarshal(e.Value(), &v) // a garbled value is a claim without an origin
			held[id{name, host}] = Claim{Agent: name, Host: host, Profile: v.Profile, Parent: v.Parent, Since: e.Created(), Rev: e.Revision()}
		case kindLeft:
			left[id{name, host}] = e
		}
	}
	out := make(map[string][]Claim)
	for k, cl := range held {
		if e, ok := left[k]; ok && e.Revision() > cl.Rev {
			cl.Until = e.Created()
		}
		out[k.agent] = append(out[k.agent], cl)
	}
	for _, cls := range out {
		slices.SortFunc(cls, func(a, b Claim) int { return cmp.Compare(a.Rev, b.Rev) })
	}
	return out
}

// take claims agent for host, unless host holds it already: a claim is
// made once, so that its place in the hub's order stays. It returns the
// claims of the agent as they are after, and whether it made or renewed
// host's.
func (b claimBook) take(ctx context.Context, host, agent string, o Origin) (claims []Claim, made bool, err error) {
	value, err := json.Marshal(claimValue(o))
	if err != nil {
		return nil, false, err
	}
	// Made first, read after: an agent is mostly claimed by a host for
	// the first time, and a claim this host made before stays as it is.
	key := claimKey(kindHeld, agent, host)
	_, err = b.kv.Create(ctx, key, value)
	made = err == nil
	if err != nil && !errors.Is(err, jetstream.ErrKeyExists) {
		return nil, false, err
	}
	all, err := b.read(ctx, agent)
	if err != nil || made {
		return all[agent], made, err
	}
	// This host claimed it before: if it let it go since, it takes it
	// again, after every claim made meanwhile.
	i := slices.IndexFunc(all[agent], func(cl Claim) bool { return cl.Host == host })
	if i < 0 || all[agent][i].Held() {
		return all[agent], false, nil
	}
	if _, err = b.kv.Put(ctx, key, value); err != nil {
		return nil, false, err
	}
	all, err = b.read(ctx, agent)
	return all[agent], true, err
}

// let records that host no longer runs agent, unless it is so already: the
// time it let go stays the first.
func (b claimBook) let(ctx context.Context, host, agent string) error {
	claims, err := b.read(ctx, agent)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(claims[agent], func(cl Claim) bool { return cl.Host == host && cl.Held() }) {
		return nil
	}
	_, err = b.kv.Put(ctx, claimKey(kindLeft, agent, host), []byte("{}"))
	return err
}

// claimCache keeps the claims of the senders of copies for a while, so that
// Receive does not read them for every copy.
type claimCache struct {
	ttl time.Duration
	mu  sync.Mutex
	m   map[string]cachedClaims
}

type cachedClaims struct {
	claims []Claim
	read   time.Time
}

// ErrForged is a copy whose sender the publishing host did not hold.
var ErrForged = errors.New("hub: sender not held by the publishing host")

// Person is the sender every host has: the person at it (switchboard's
// operator). A copy from the person at another host is that host's person,
// whom the receiving side tells apart from its own.
const Person = "operator"

// senderOf checks that d.Host held d.From when the hub stored the copy, and
// returns the holding claim (none for Person). A cached answer older than
// fresh is read again before a copy is refused; the view of the team is
// asked only when current says it holds every claim the hub stored before
// the copy (claimsCurrent), else the hub is.
func (c *Conn) senderOf(ctx context.Context, d Delivered, fresh time.Time, current bool) (Claim, error) {
	if d.From == Person {
		return Claim{Agent: Person, Host: d.Host}, nil
	}
	if !claimable(d.From) {
		return Claim{}, fmt.Errorf("%w: %q is not a name any host may send as", ErrForged, d.From)
	}
	claims, err := c.claimsOf(ctx, d.From)
	if !current {
		claims, err = c.claimsRead(ctx, d.From, fresh)
	}
	if err != nil {
		return Claim{}, err
	}
	holder, ok := holderAt(claims, d.Published)
	if !ok || holder.Host != d.Host {
		// Before a copy is refused, the hub is asked, once a batch: the
		// claim of a helper made a moment ago may not have reached this
		// host's view yet.
		if claims, err = c.claimsRead(ctx, d.From, fresh); err != nil {
			return Claim{}, err
		}
		holder, ok = holderAt(claims, d.Published)
	}
	switch {
	case ok && holder.Host == d.Host:
		return holder, nil
	case !ok:
		return Claim{}, fmt.Errorf("%w: no host ran %s when host %s sent this as from it", ErrForged, d.From, d.Host)
	default:
		return Claim{}, fmt.Errorf("%w: host %s sent this as from %s, which host %s ran then", ErrForged, d.Host, d.From, holder.Host)
	}
}

// claimsCurrent reports whether the view of the team holds every claim the
// hub stored until now: the copies taken a moment ago were stored after
// any claim that could make them another's, and a claim reaches the view
// on the hub's feed, in order but not at once. The claims' stream is
// asked how far it goes, and the feed is given a moment to get there.
func (c *Conn) claimsCurrent(ctx context.Context) bool {
	if _, whole := c.view.allClaims(c.names); !whole {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, feedLag)
	defer cancel()
	st, err := c.js.Stream(ctx, kvStream(c.names.claims()))
	if err != nil {
		return false
	}
	last := st.CachedInfo().State.LastSeq
	return watch.Until(ctx, time.Millisecond, feedLag, func() bool { return c.view.claimsApplied.Load() >= last })
}

// claimsOf returns the claims of agent: from the view of the team, once it
// is whole, else from what the hub said of it a moment ago, else from the
// hub.
func (c *Conn) claimsOf(ctx context.Context, agent string) ([]Claim, error) {
	if claims, ok := c.view.allClaims(c.names); ok {
		return claims[agent], nil
	}
	return c.claimsRead(ctx, agent, time.Now().Add(-c.senders.ttl))
}

// claimsRead returns the claims of agent as the hub held them at since or
// later: read from the hub, unless read there since.
func (c *Conn) claimsRead(ctx context.Context, agent string, since time.Time) ([]Claim, error) {
	c.senders.mu.Lock()
	cached, ok := c.senders.m[agent]
	c.senders.mu.Unlock()
	if ok && !cached.read.Before(since) {
		return cached.claims, nil
	}
	read := time.Now()
	ctx, cancel := c.linked(ctx)
	defer cancel()
	all, err := c.claimBook().read(ctx, agent)
	if err != nil {
		return nil, c.explain(ctx, err, "read the claims of "+agent)
	}
	c.senders.mu.Lock()
	if c.senders.m == nil {
		c.senders.m = make(map[string]cachedClaims)
	}
	c.senders.m[agent] = cachedClaims{claims: all[agent], read: read}
	c.senders.mu.Unlock()
	return all[agent], nil
}
