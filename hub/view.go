package hub

import (
	"encoding/json"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/nats-io/nats.go/jetstream"
)

// view is the team's claims, presence and shared values as this host last
// heard of them. The hub's feed keeps it (feed.go), telling each change
// once it is stored, so that
// listing the team, and checking the sender of each copy, read nothing: a
// team of a thousand agents at rest costs its hosts nothing but their
// heartbeats.
type view struct {
	mu       sync.Mutex
	claims   map[string]jetstream.KeyValueEntry // by key of the claims bucket
	presence map[string]string                  // state, by "<host>.<agent>"
	shared   map[string][]byte                  // the team's shared values, by key
	synced   map[string]bool                    // buckets read whole since the feed was last missed
	changed  chan struct{}                      // woken on each change
	// settled is closed once the reading of every key under way, or
	// coming, has ended, whole or not; a new one is made when the view
	// must be read again.
	settled chan struct{}

	// claimsApplied is the newest revision of the claims' bucket the view
	// holds all claims up to (feed.go).
	claimsApplied atomic.Uint64

	parsed map[string][]Claim // the claims, as claimsOfEntries makes them; nil when the claims changed since

	// The team as teamOf last made it, and of which hosts live; nil when
	// the claims or the states changed since.
	team     []Member
	teamLive map[string]bool
}

func newView() *view {
	return &view{claims: make(map[string]jetstream.KeyValueEntry), presence: make(map[string]string),
		shared: make(map[string][]byte), synced: make(map[string]bool), changed: make(chan struct{}, 1), settled: make(chan struct{})}
}

// settle says that the reading under way ended.
func (v *view) settle() {
	v.mu.Lock()
	defer v.mu.Unlock()
	select {
	case <-v.settled:
	default:
		close(v.settled)
	}
}

// unsync says that the view is no longer whole, and is to be read again.
func (v *view) unsync() {
	v.mu.Lock()
	defer v.mu.Unlock()
	clear(v.synced)
	select {
	case <-v.settled:
		v.settled = make(chan struct{})
	default:
	}
}

// reading is closed once the reading of the view under way, or coming,
// has ended.
func (v *view) reading() <-chan struct{} {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.settled
}

// replace sets what the view holds of bucket to entries. The caller holds
// the lock.
func (v *view) replace(bucket string, n names, entries map[string]jetstream.KeyValueEntry) {
	switch bucket {
	case n.claims():
		v.claims = make(map[string]jetstream.KeyValueEntry, len(entries))
		v.parsed, v.team = nil, nil
	case n.presence():
		v.presence = make(map[string]string, len(entries))
		v.team = nil
	case n.shared():
		v.shared = make(map[string][]byte, len(entries))
	}
	for _, e := range entries {
		v.apply(bucket, n, e)
	}
}

// apply sets one entry of bucket in the view. The caller holds the lock.
func (v *view) apply(bucket string, n names, e jetstream.KeyValueEntry) {
	gone := e.Operation() != jetstream.KeyValuePut
	switch bucket {
	case n.claims():
		v.parsed, v.team = nil, nil
		if gone {
			delete(v.claims, e.Key())
		} else {
			v.claims[e.Key()] = e
		}
	case n.presence():
		v.team = nil
		var p presenceValue
		if gone || json.Unmarshal(e.Value(), &p) != nil {
			delete(v.presence, e.Key())
		} else {
			v.presence[e.Key()] = p.State
		}
	case n.shared():
		if gone {
			delete(v.shared, e.Key())
		} else {
			v.shared[e.Key()] = e.Value()
		}
	}
}

func (v *view) wake() {
	select {
	case v.changed <- struct{}{}:
	default:
	}
}

// allClaims returns the view's claims, by agent, and whether the view is
// whole, both buckets having been read since the feed was last missed. They are made
// once a change: a team at rest, listed each beat and checking the sender
// of each copy, parses nothing again. The caller does not change them.
func (v *view) allClaims(n names) (map[string][]Claim, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.claimsLocked(n)
}

func (v *view) claimsLocked(n names) (map[string][]Claim, bool) {
	if !v.synced[n.claims()] || !v.synced[n.presence()] {
		return nil, false
	}
	if v.parsed == nil {
		v.parsed = claimsOfEntries(slices.Collect(maps.Values(v.claims)))
	}
	return v.parsed, true
}

// teamOf returns the team the view makes with the hosts that live, and
// whether the view is whole; made again only when the claims, the states
// or the live hosts changed, so that a team of a thousand agents at rest,
// listed each beat, is listed once. The caller does not change it.
func (v *view) teamOf(n names, live map[string]bool) ([]Member, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	claims, ok := v.claimsLocked(n)
	if !ok {
		return nil, false
	}
	if v.team == nil || !maps.Equal(v.teamLive, live) {
		v.team, v.teamLive = teamOf(claims, v.presence, live), live
	}
	return v.team, true
}

// values returns the view's shared values, and whether they were all read.
func (v *view) values(n names) (map[string][]byte, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.synced[n.shared()] {
		return nil, false
	}
	return maps.Clone(v.shared), true
}

// Changed is woken when the team's claims or states change, as this host
// hears of it: a master looks at the team then, not only at its beat.
func (c *Conn) Changed() <-chan struct{} { return c.view.changed }

// teamOf lists the members the claims make, with their states and whether
// their hosts are live, sorted by agent.
func teamOf(claims map[string][]Claim, states map[string]string, live map[string]bool) []Member {
	out := make([]Member, 0, len(claims))
	for _, agent := range slices.Sorted(maps.Keys(claims)) {
		holder, ok := holderNow(claims[agent])
		if !ok {
			continue
		}
		out = append(out, Member{Agent: agent, Host: holder.Host, Profile: holder.Profile, Parent: holder.Parent,
			Reachable: live[holder.Host], State: states[holder.Host+"."+agent]})
	}
	return out
}
