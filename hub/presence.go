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
)

// Presence is two buckets. "presence" has one key per agent, "<host>.<agent>",
// holding its state; it does not expire, so a silent host's agents are still
// listed, as unreachable. "hosts" has one key per host, put on every beat,
// and the bucket's age limit removes a key three beats after its last put: a
// host is reachable while its key exists. A per-key time to live would need
// a delete and a create on every beat (the TTL is taken only when a key is
// created); the bucket's age limit needs one put.

// AgentState is what a host announces about one of its agents.
type AgentState struct {
	Agent, State string
	// Profile and Parent are set for an agent spawned at run time: what it
	// was spawned from, and under whom, so that every host's rules know it.
	Profile, Parent string
}

// Member is one agent of the team as presence shows it.
type Member struct {
	Agent, Host, State string
	// Profile and Parent, for an agent spawned at run time.
	Profile, Parent string
	// Reachable is false when the host's heartbeat stopped.
	Reachable bool
}

// AgentClaimed is the refusal to take an agent that another host claims.
type AgentClaimed struct {
	Agent, Host string
	// Reachable tells whether the other host is alive.
	Reachable bool
}

func (e *AgentClaimed) Error() string {
	if e.Reachable {
		return fmt.Sprintf("hub: agent %s already runs on host %s: run it on one host only, or stop it there first", e.Agent, e.Host)
	}
	return fmt.Sprintf("hub: agent %s is claimed by host %s, which is unreachable and still holds its mail: start host %s again without the agent, then try again", e.Agent, e.Host, e.Host)
}

// stateLeft marks an agent its host no longer runs. Its key stays, so that
// the copies it sent before it left are still taken as its host's.
const stateLeft = "left"

type presenceValue struct {
	State   string `json:"state"`
	Profile string `json:"profile,omitempty"`
	Parent  string `json:"parent,omitempty"`
}

func (c *Conn) heartbeatLoop() {
	defer c.wg.Done()
	t := time.NewTicker(c.beat)
	defer t.Stop()
	for {
		select {
		case <-c.closed.Done():
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), c.beat)
			// A failed beat is retried at the next tick; three in a row
			// make this host unreachable to the others, which is the truth.
			_ = c.beatOnce(ctx)
			cancel()
		}
	}
}

func (c *Conn) beatOnce(ctx context.Context) error {
	_, err := c.heartbeat.Put(ctx, c.host, []byte(time.Now().UTC().Format(time.RFC3339Nano)))
	return err
}

func (c *Conn) putPresence(ctx context.Context, agent, state string) error {
	return c.putPresenceValue(ctx, agent, presenceValue{State: state})
}

func (c *Conn) putPresenceValue(ctx context.Context, agent string, pv presenceValue) error {
	v, err := json.Marshal(pv)
	if err != nil {
		return err
	}
	_, err = c.presence.Put(ctx, c.host+"."+agent, v)
	return err
}

// Announce records the state of some of this host's agents.
func (c *Conn) Announce(ctx context.Context, states []AgentState) error {
	ctx, cancel := c.linked(ctx)
	defer cancel()
	mine := c.Agents()
	for _, s := range states {
		if !slices.Contains(mine, s.Agent) {
			return fmt.Errorf("%w: agent %q is not one of host %s's: add it to the host's agents first", ErrBadConfig, s.Agent, c.host)
		}
		if err := c.putPresenceValue(ctx, s.Agent, presenceValue{State: s.State, Profile: s.Profile, Parent: s.Parent}); err != nil {
			return c.explain(ctx, err, "announce agent "+s.Agent)
		}
	}
	return nil
}

// Agents are the agents this host claims.
func (c *Conn) Agents() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.agents)
}

// Team lists every host's agents, sorted by agent then host. An agent claimed
// by a reachable host hides any stale claim of an unreachable one.
func (c *Conn) Team(ctx context.Context) ([]Member, error) {
	ctx, cancel := c.linked(ctx)
	defer cancel()
	live, err := c.liveHosts(ctx)
	if err != nil {
		return nil, c.explain(ctx, err, "read heartbeats")
	}
	all, err := c.members(ctx, ">", live)
	if err != nil {
		return nil, c.explain(ctx, err, "read presence")
	}
	reachable := map[string]bool{}
	for _, m := range all {
		if m.Reachable {
			reachable[m.Agent] = true
		}
	}
	out := all[:0]
	for _, m := range all {
		if m.Reachable || !reachable[m.Agent] {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b Member) int {
		return cmp.Or(cmp.Compare(a.Agent, b.Agent), cmp.Compare(a.Host, b.Host))
	})
	return out, nil
}

// members reads the presence keys matching filter.
func (c *Conn) members(ctx context.Context, filter string, live map[string]bool) ([]Member, error) {
	keys, err := c.keys(ctx, c.names.presence(), filter)
	if err != nil {
		return nil, err
	}
	var out []Member
	for _, k := range keys {
		host, agent, ok := strings.Cut(k, ".")
		if !ok {
			continue
		}
		e, err := c.presence.Get(ctx, k)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue // an agent its host let go
		}
		if err != nil {
			return nil, err
		}
		var v presenceValue
		_ = json.Unmarshal(e.Value(), &v) // a garbled state reads as unknown
		if v.State == stateLeft {
			continue // no longer its host's
		}
		out = append(out, Member{Agent: agent, Host: host, State: v.State, Profile: v.Profile, Parent: v.Parent, Reachable: live[host]})
	}
	return out, nil
}

// liveHosts are the hosts whose heartbeat key has not expired.
func (c *Conn) liveHosts(ctx context.Context) (map[string]bool, error) {
	keys, err := c.keys(ctx, c.names.heartbeat(), ">")
	if err != nil {
		return nil, err
	}
	live := make(map[string]bool, len(keys))
	for _, k := range keys {
		live[k] = true
	}
	return live, nil
}

// keys lists the keys of a bucket that have a message, deleted ones
// included, from the stream's subjects: no consumer is needed, so a host
// needs no permission to make one on the team's buckets.
func (c *Conn) keys(ctx context.Context, bucket, filter string) ([]string, error) {
	s, err := c.js.Stream(ctx, kvStream(bucket))
	if err != nil {
		return nil, err
	}
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(kvSubject(bucket, filter)))
	if err != nil {
		return nil, err
	}
	prefix := kvSubject(bucket, "")
	keys := make([]string, 0, len(info.State.Subjects))
	for subject := range info.State.Subjects {
		keys = append(keys, strings.TrimPrefix(subject, prefix))
	}
	slices.Sort(keys)
	return keys, nil
}

// checkClaims refuses agents that another host claims.
func (c *Conn) checkClaims(ctx context.Context, agents []string) error {
	ctx, cancel := c.linked(ctx)
	defer cancel()
	if len(agents) == 0 {
		return nil
	}
	live, err := c.liveHosts(ctx)
	if err != nil {
		return c.explain(ctx, err, "read heartbeats")
	}
	for _, a := range agents {
		claims, err := c.members(ctx, "*."+a, live)
		if err != nil {
			return c.explain(ctx, err, "read presence")
		}
		for _, m := range claims {
			if m.Host != c.host {
				return &AgentClaimed{Agent: a, Host: m.Host, Reachable: m.Reachable}
			}
		}
	}
	return nil
}

// senderCache remembers for a while which host claims which sender, so that
// Receive does not read presence for every copy.
type senderCache struct {
	ttl  time.Duration
	mu   sync.Mutex
	seen map[string]time.Time
}

func (s *senderCache) fresh(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	at, ok := s.seen[key]
	return ok && time.Since(at) < s.ttl
}

func (s *senderCache) remember(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen == nil {
		s.seen = map[string]time.Time{}
	}
	s.seen[key] = time.Now()
}

// ErrForged is a copy whose sender the publishing host does not claim.
var ErrForged = errors.New("hub: sender not claimed by the publishing host")

// Person is the sender every host has: the person at it (switchboard's
// operator), whose mail a host may always send.
const Person = "operator"

// CheckSender tells whether host claims agent from in presence: the hub lets
// a host write only its own presence keys and publish only under its own
// name, so a copy that passes was sent by the host that runs its sender.
// It returns ErrForged when the claim is absent. Person is always
// accepted: every host has one.
func (c *Conn) CheckSender(ctx context.Context, host, from string) error {
	if from == Person && validName(host) {
		return nil // every host has a person at it, who may write from there
	}
	ctx, cancel := c.linked(ctx)
	defer cancel()
	key := host + "." + from
	if !validName(host) || !validName(from) {
		return fmt.Errorf("%w: sender %q on host %q is not a valid name", ErrForged, from, host)
	}
	if c.senders.fresh(key) {
		return nil
	}
	_, err := c.presence.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return fmt.Errorf("%w: host %s does not run agent %s", ErrForged, host, from)
	}
	if err != nil {
		return c.explain(ctx, err, "check the sender")
	}
	c.senders.remember(key)
	return nil
}
