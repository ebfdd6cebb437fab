package hub

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// Which hosts are reachable. A host beats by a message to the hub
// (names.beat), which only that host may send and nothing stores: each
// node's service (reachBook) notes when it last heard each host, and
// tells the team on its feed (names.feedReach) when a host is first heard,
// and when one was not heard for three beats. A host asks a service once
// who is reachable (names.reachRequest), then follows the feed. A team at
// rest costs the hub one message a beat a host, which no stream stores and
// no cluster replicates, and costs the hosts nothing else.

// reachAnswer is a service's answer to who is reachable.
type reachAnswer struct {
	Hosts []string `json:"hosts"`
	// Partial is set while the service has listened for less than a
	// beat: a host it has not heard yet may be up. WaitMS says how long
	// until it has.
	Partial bool  `json:"partial,omitempty"`
	WaitMS  int64 `json:"wait_ms,omitempty"`
}

// reachNews is what the feed tells of one host.
type reachNews struct {
	Reachable bool `json:"reachable"`
}

// reachBook is a service's record of the hosts it hears beat.
type reachBook struct {
	nc          *nats.Conn
	n           names
	beat, lapse time.Duration
	started     time.Time

	mu    sync.Mutex
	heard map[string]*hostHeard
	// reconnects is how many times the service's connection came back,
	// when it last looked: a service that was away has listened since
	// its return only.
	reconnects uint64
}

// hostHeard is when a host last beat, and the timer that looks whether it
// still does: it fires once a lapse, not once a beat.
type hostHeard struct {
	last  time.Time
	timer *time.Timer
}

func newReachBook(nc *nats.Conn, n names, beat time.Duration) *reachBook {
	return &reachBook{nc: nc, n: n, beat: beat, lapse: 3 * beat, started: time.Now(), heard: make(map[string]*hostHeard)}
}

// serve answers the hosts' beats and their questions until nc closes.
func (r *reachBook) serve() error {
	if _, err := r.nc.Subscribe(r.n.beat("*"), r.hear); err != nil {
		return fmt.Errorf("hear the hosts' beats: %w", err)
	}
	if _, err := r.nc.Subscribe(r.n.reachRequest("*"), r.answer); err != nil {
		return fmt.Errorf("answer who is reachable: %w", err)
	}
	return nil
}

// hear notes a beat; a host not heard before is told reachable.
func (r *reachBook) hear(m *nats.Msg) {
	host, ok := strings.CutPrefix(m.Subject, strings.TrimSuffix(r.n.beat("*"), "*"))
	if !ok || !validName(host) {
		return
	}
	r.mu.Lock()
	h, known := r.heard[host]
	if !known {
		h = &hostHeard{}
		h.timer = time.AfterFunc(r.lapse, func() { r.look(host) })
		r.heard[host] = h
	}
	h.last = time.Now()
	if !known {
		r.tell(host, true) // under the lock: news of one host goes out in order
	}
	r.mu.Unlock()
}

// look tells a host unreachable when it has not beat for a lapse, and
// else looks again when it would have.
func (r *reachBook) look(host string) {
	r.mu.Lock()
	h := r.heard[host]
	if h == nil {
		r.mu.Unlock()
		return
	}
	if left := r.lapse - time.Since(h.last); left > 0 {
		h.timer.Reset(left)
		r.mu.Unlock()
		return
	}
	delete(r.heard, host)
	r.tell(host, false)
	r.mu.Unlock()
}

func (r *reachBook) tell(host string, reachable bool) {
	news, _ := json.Marshal(reachNews{Reachable: reachable})
	_ = r.nc.Publish(r.n.feedReach(host), news) // a closed hub tells no one
}

// answer says which hosts beat, and whether the service has listened long
// enough to know.
func (r *reachBook) answer(m *nats.Msg) {
	r.mu.Lock()
	a := reachAnswer{Hosts: make([]string, 0, len(r.heard))}
	for host := range r.heard {
		a.Hosts = append(a.Hosts, host)
	}
	if n := r.nc.Stats().Reconnects; n != r.reconnects {
		r.reconnects, r.started = n, time.Now()
	}
	started := r.started
	r.mu.Unlock()
	// Every host that is up beats once a beat: one beat and a half heard
	// is every such host heard.
	if left := r.beat*3/2 - time.Since(started); left > 0 {
		a.Partial, a.WaitMS = true, max(left.Milliseconds(), 1)
	}
	body, _ := json.Marshal(a)
	_ = m.Respond(body)
}

// reachView is which hosts are reachable as this host last heard: asked
// once, then kept by the feed.
type reachView struct {
	mu    sync.Mutex
	hosts map[string]bool
	// until is when the hosts are to be asked of the hub again: a minute
	// after a whole answer, once the service has listened long enough
	// after a partial one; zero while the view is not followed, or may
	// have missed news.
	until time.Time
	// early is news the feed told before the answer came, applied over it.
	early map[string]bool
	// asking lets one question be on its way at a time, so that an older
	// answer never takes the place of a newer one.
	asking sync.Mutex
}

// reachAgain is how often a host asks again who is reachable, in case
// news was lost on its way.
const reachAgain = time.Minute

// hear applies news of a host from the feed; it reports whether the view
// changed.
func (v *reachView) hear(m *nats.Msg, n names) bool {
	host, ok := strings.CutPrefix(m.Subject, strings.TrimSuffix(n.feedReach("*"), "*"))
	var news reachNews
	if !ok || !validName(host) || json.Unmarshal(m.Data, &news) != nil {
		return false
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.early != nil {
		v.early[host] = news.Reachable
	}
	if v.hosts == nil || v.hosts[host] == news.Reachable {
		return false
	}
	if news.Reachable {
		v.hosts[host] = true
	} else {
		delete(v.hosts, host)
	}
	return true
}

// forget has the next look ask the hub again: news may have been lost.
func (v *reachView) forget() {
	v.mu.Lock()
	v.until = time.Time{}
	v.mu.Unlock()
}

// current returns the hosts as the view holds them, when it holds them and
// asked recently enough.
func (v *reachView) current() (map[string]bool, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.hosts == nil || !time.Now().Before(v.until) {
		return nil, false
	}
	return maps.Clone(v.hosts), true
}

// followReach keeps this host's view of who is reachable from the feed,
// until the Conn closes.
func (c *Conn) followReach() error {
	sub, err := c.nc.Subscribe(c.names.feedReach("*"), func(m *nats.Msg) {
		if c.reach.hear(m, c.names) {
			c.view.wake()
		}
	})
	if err != nil {
		return err
	}
	_ = sub.SetPendingLimits(-1, -1)
	c.reach.mu.Lock()
	c.reach.early = make(map[string]bool)
	c.reach.mu.Unlock()
	return nil
}

// liveHosts are the hosts the hub hears beat, as this host's view holds
// them, or as the hub says when the view does not.
func (c *Conn) liveHosts(ctx context.Context) (map[string]bool, error) {
	if live, ok := c.reach.current(); ok {
		return live, nil
	}
	live, _, err := c.askReach(ctx)
	return live, err
}

// reachableNow is liveHosts for a decision that a host missed would make
// wrong (the team's rules taken, a lock forced): a service that has not
// listened for a beat yet, as just after the hub started, is asked again
// once it has.
func (c *Conn) reachableNow(ctx context.Context) (map[string]bool, error) {
	for {
		live, wait, err := c.askReach(ctx)
		if err != nil || wait == 0 {
			return live, err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, context.Cause(ctx)
		case <-t.C:
		}
	}
}

// askReach asks a service who is reachable; wait is how long until its
// answer is whole, zero when it is. A followed view takes the answer, with
// the news told while it was on its way.
func (c *Conn) askReach(ctx context.Context) (live map[string]bool, wait time.Duration, err error) {
	c.reach.asking.Lock()
	defer c.reach.asking.Unlock()
	asked := time.Now()
	c.reach.mu.Lock()
	followed := c.reach.early != nil
	if followed {
		clear(c.reach.early)
	}
	c.reach.mu.Unlock()
	msg, err := c.nc.RequestWithContext(ctx, c.names.reachRequest(c.host), nil)
	if err != nil {
		return nil, 0, err
	}
	var a reachAnswer
	if err := json.Unmarshal(msg.Data, &a); err != nil {
		return nil, 0, fmt.Errorf("read who is reachable: %w", err)
	}
	live = make(map[string]bool, len(a.Hosts))
	for _, h := range a.Hosts {
		live[h] = true
	}
	if a.Partial {
		wait = time.Duration(a.WaitMS) * time.Millisecond
	}
	if followed {
		c.reach.mu.Lock()
		for h, up := range c.reach.early {
			if up {
				live[h] = true
			} else {
				delete(live, h)
			}
		}
		c.reach.hosts, c.reach.until = maps.Clone(live), asked.Add(cmp.Or(wait, reachAgain))
		c.reach.mu.Unlock()
	}
	return live, wait, nil
}

// beatOnce tells the hub this host is up.
func (c *Conn) beatOnce() error {
	return c.nc.Publish(c.names.beat(c.host), nil)
}
