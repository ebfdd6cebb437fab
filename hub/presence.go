package hub

import (
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

// Presence is two buckets and the hosts' beats. "claims" says which host
// runs which agent (claims.go). "presence" has one key per agent,
// "<host>.<agent>", holding its state, which only its host may write. A
// host beats while it can take its mail, and is reachable while the hub
// hears it (reach.go).

// AgentState is what a host announces about one of its agents.
type AgentState struct {
	Agent, State string
}

// Member is one agent of the team as presence shows it: the host that
// holds it, by the hub's order of claims.
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

type presenceValue struct {
	State string `json:"state"`
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
			if c.stalled.Load() {
				// A host that cannot take its mail is not there for
				// the others: let its heartbeat lapse.
				continue
			}
			// A beat lost is made up at the next tick; three in a row
			// make this host unreachable to the others, which is the truth.
			_ = c.beatOnce()
		}
	}
}

func (c *Conn) putPresence(ctx context.Context, agent, state string) error {
	v, err := json.Marshal(presenceValue{State: state})
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
	}
	return c.announce(ctx, states)
}

// announcingAtOnce bounds the states a host has on their way to the hub at
// once.
const announcingAtOnce = 16

// announce puts the states, a few at once: each is a key of its own, which
// one after the other would cost a host of a hundred agents, as it joins
// and as it first tells their states, a hundred round trips to the hub,
// each replicated on a cluster of hubs. The error is that of the first
// state in order that failed.
func (c *Conn) announce(ctx context.Context, states []AgentState) error {
	errs := make([]error, len(states))
	busy := make(chan struct{}, announcingAtOnce)
	var wg sync.WaitGroup
	for i, s := range states {
		busy <- struct{}{}
		wg.Go(func() {
			defer func() { <-busy }()
			if err := c.putPresence(ctx, s.Agent, s.State); err != nil {
				errs[i] = c.explain(ctx, err, "announce agent "+s.Agent)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
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

// Team lists every agent with the host that holds it, sorted by agent. A
// claim that the hub stored after another host's, still held, is no one's.
// A Conn that joined answers from its view of the team, which the hub keeps
// current; one that dialled reads the claims and states.
func (c *Conn) Team(ctx context.Context) ([]Member, error) {
	ctx, cancel := c.linked(ctx)
	defer cancel()
	live, err := c.liveHosts(ctx)
	if err != nil {
		return nil, c.explain(ctx, err, "read which hosts are reachable")
	}
	if team, ok := c.view.teamOf(c.names, live); ok {
		return slices.Clone(team), nil
	}
	// The view is being read, as it is when this host has just joined:
	// waiting for it costs the hub less than reading every claim and state
	// again here, one after the other.
	select {
	case <-c.view.reading():
		if team, ok := c.view.teamOf(c.names, live); ok {
			return slices.Clone(team), nil
		}
	case <-ctx.Done():
		return nil, c.explain(ctx, context.Cause(ctx), "read the team")
	case <-c.closed.Done():
		return nil, ErrClosed
	}
	claims, err := c.claimBook().read(ctx, "*")
	if err != nil {
		return nil, c.explain(ctx, err, "read the claims")
	}
	states := make(map[string]string)
	for agent, cls := range claims {
		holder, ok := holderNow(cls)
		if !ok {
			continue
		}
		key := holder.Host + "." + agent
		e, err := c.presence.Get(ctx, key)
		switch {
		case err == nil:
			var v presenceValue
			_ = json.Unmarshal(e.Value(), &v) // a garbled state reads as unknown
			states[key] = v.State
		case !errors.Is(err, jetstream.ErrKeyNotFound):
			return nil, c.explain(ctx, err, "read presence")
		}
	}
	return teamOf(claims, states, live), nil
}

// Holder is the host that holds agent now, by the hub's order of claims,
// and whether one does. What it read a moment ago serves, unless it showed
// no holder: an agent claimed since is found at once.
func (c *Conn) Holder(ctx context.Context, agent string) (Claim, bool, error) {
	claims, err := c.claimsOf(ctx, agent)
	if err != nil {
		return Claim{}, false, err
	}
	if holder, ok := holderNow(claims); ok {
		return holder, true, nil
	}
	if claims, err = c.claimsRead(ctx, agent, time.Now()); err != nil {
		return Claim{}, false, err
	}
	holder, ok := holderNow(claims)
	return holder, ok, nil
}

// keys lists the keys of a bucket that have a message, deleted ones
// included, from the stream's subjects: no consumer is needed, so a host
// needs no permission to make one on the team's buckets.
func (c *Conn) keys(ctx context.Context, bucket, filter string) ([]string, error) {
	st, err := c.stream(ctx, kvStream(bucket))
	if err != nil {
		return nil, err
	}
	info, err := st.Info(ctx, jetstream.WithSubjectFilter(kvSubject(bucket, filter)))
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

// claim takes agents for this host, in order, and refuses (*AgentClaimed)
// at the first that another host holds: a claim the hub stored before this
// host's, still held. A refused claim is let go again at once.
//
// When no other host has ever claimed one of them (the hub has no claim of
// another host's on any), they are taken claimingAtOnce at a time, and
// judged after in order: a refusal then comes only from a host that claims
// one of them at this very moment, and the claims this host made of the
// agents after the refused one are let go too, as if it had stopped there.
// Else they are taken one after the other.
func (c *Conn) claim(ctx context.Context, agents []string, origins map[string]Origin) error {
	for _, a := range agents {
		if !claimable(a) {
			return fmt.Errorf("%w: %q cannot be an agent of a host", ErrBadName, a)
		}
	}
	book := c.claimBook()
	type taken struct {
		claims          []Claim
		tried, made, ok bool
	}
	ahead := make([]taken, len(agents))
	if c.claimedOnlyHere(ctx, agents) {
		busy := make(chan struct{}, claimingAtOnce)
		var wg sync.WaitGroup
		for i, a := range agents {
			busy <- struct{}{}
			wg.Go(func() {
				defer func() { <-busy }()
				claims, made, err := book.take(ctx, c.host, a, origins[a])
				ahead[i] = taken{claims, true, made, err == nil} // one that failed is taken again below
			})
		}
		wg.Wait()
	}
	for i, a := range agents {
		claims := ahead[i].claims
		if !ahead[i].ok {
			var err error
			if claims, _, err = book.take(ctx, c.host, a, origins[a]); err != nil {
				return c.explain(ctx, err, "claim agent "+a)
			}
		}
		holder, ok := holderNow(claims)
		if ok && holder.Host == c.host {
			continue
		}
		if !ok { // the claim just made is not there: the hub is not itself
			return fmt.Errorf("%w: the claim of %s made a moment ago is not on the hub", ErrUnreachable, a)
		}
		if err := book.let(ctx, c.host, a); err != nil {
			return c.explain(ctx, err, "withdraw the claim of "+a)
		}
		for j, after := range agents[i+1:] {
			if t := ahead[i+1+j]; t.made || (t.tried && !t.ok) {
				if err := book.let(ctx, c.host, after); err != nil {
					return c.explain(ctx, err, "withdraw the claim of "+after)
				}
			}
		}
		live, err := c.reachableNow(ctx)
		if err != nil {
			return c.explain(ctx, err, "read which hosts are reachable")
		}
		return &AgentClaimed{Agent: a, Host: holder.Host, Reachable: live[holder.Host]}
	}
	return nil
}

// claimingAtOnce bounds the claims a host makes at once.
const claimingAtOnce = 16

// claimedOnlyHere reports whether no host but this one ever claimed one of
// agents, by the keys of the claims bucket (the hub's, in one request);
// false when it cannot tell.
func (c *Conn) claimedOnlyHere(ctx context.Context, agents []string) bool {
	keys, err := c.keys(ctx, c.names.claims(), "*.*.*")
	if err != nil {
		return false
	}
	mine := make(map[string]bool, len(agents))
	for _, a := range agents {
		mine[a] = true
	}
	for _, k := range keys {
		_, rest, _ := strings.Cut(k, ".")
		agent, host, _ := strings.Cut(rest, ".")
		if mine[agent] && host != c.host {
			return false
		}
	}
	return true
}

func (c *Conn) claimBook() claimBook { return claimBook{c: c, kv: c.claims, n: c.names} }
