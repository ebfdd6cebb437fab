package hub

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"switchboard/hub/embedded"
)

func TestDifferentRulesAreRefused(t *testing.T) {
	s := startHub(t, t.TempDir())
	a, err := joinWith(s, "a", JoinConfig{Agents: []string{"alice"}, RulesText: []byte("allow: all\ndeny: none\n")})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()

	_, err = joinWith(s, "b", JoinConfig{Agents: []string{"bob"}, RulesText: []byte("allow: all\ndeny: bob\n")})
	var m *RulesMismatch
	if !errors.As(err, &m) {
		t.Fatalf("join with other rules returned %v, want *RulesMismatch", err)
	}
	msg := err.Error()
	t.Log(msg)
	for _, want := range []string{"line 2", `"deny: none"`, `"deny: bob"`, "host a", "same on every host"} {
		if !strings.Contains(msg, want) {
			t.Errorf("refusal %q does not say %s", msg, want)
		}
	}

	c, err := joinWith(s, "c", JoinConfig{Agents: []string{"carol"}, RulesText: []byte("allow: all\ndeny: none\n")})
	if err != nil {
		t.Fatalf("join with the same rules refused: %v", err)
	}
	c.Close()
}

func TestAgentClaimedByAnotherHostIsRefused(t *testing.T) {
	s := startHub(t, t.TempDir())
	join(t, s, "a", "alice", "ann")
	_, err := joinWith(s, "b", JoinConfig{Agents: []string{"bob", "ann"}, RulesText: []byte("rules v1\n")})
	var claimed *AgentClaimed
	if !errors.As(err, &claimed) {
		t.Fatalf("join claiming a's agent returned %v, want *AgentClaimed", err)
	}
	if claimed.Agent != "ann" || claimed.Host != "a" || !claimed.Reachable {
		t.Fatalf("refusal names %+v, want ann on live host a", claimed)
	}
	if !strings.Contains(err.Error(), "ann") || !strings.Contains(err.Error(), "host a") {
		t.Fatalf("refusal %q does not name the agent and the host", err)
	}

	// SetAgents refuses the same way, and lets an unclaimed agent in.
	b := join(t, s, "b", "bob")
	ctx := ctxFor(t, 5*time.Second)
	if err := b.SetAgents(ctx, []string{"bob", "alice"}, nil); !errors.As(err, &claimed) {
		t.Fatalf("SetAgents claiming a's agent returned %v, want *AgentClaimed", err)
	}
	if err := b.SetAgents(ctx, []string{"bea"}, nil); err != nil {
		t.Fatal(err)
	}
	teamIs(t, b, "alice@a ann@a bea@b")
}

// teamIs waits until c sees the team as want describes it: a host hears
// of the team's changes, its own among them, as the hub pushes them.
func teamIs(t *testing.T, c *Conn, want string) {
	t.Helper()
	var got string
	waitFor(t, 10*time.Second, "the team "+want, func() bool {
		team, err := c.Team(ctxFor(t, 5*time.Second))
		got = describe(team)
		return err == nil && got == want
	})
}

func describe(team []Member) string {
	var parts []string
	for _, m := range team {
		p := m.Agent + "@" + m.Host
		if !m.Reachable {
			p += "(unreachable)"
		}
		if m.State != "" {
			p += "=" + m.State
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " ")
}

func TestMailFollowsSetAgents(t *testing.T) {
	s := startHub(t, t.TempDir())
	a := join(t, s, "a", "alice")
	b := join(t, s, "b", "bob")
	got := receiveInto(t, b, nil)
	ctx := ctxFor(t, 10*time.Second)
	if err := b.SetAgents(ctx, []string{"bob", "bea"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := a.Publish(ctx, Copy{ID: "m1", To: "bea", From: "alice"}); err != nil {
		t.Fatal(err)
	}
	select {
	case d := <-got:
		if d.To != "bea" {
			t.Fatalf("delivered %+v, want the copy to bea", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("mail for a newly added agent did not arrive within 10s")
	}
}

func TestPresenceShowsAStoppedHostUnreachable(t *testing.T) {
	s := startFastHub(t, t.TempDir())
	fast := func(agents ...string) JoinConfig {
		return JoinConfig{Agents: agents, RulesText: []byte("rules v1\n"), beat: fastBeat}
	}
	a, err := joinWith(s, "a", fast("alice", "ann"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := joinWith(s, "b", fast("bob"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := ctxFor(t, 20*time.Second)
	if err := a.Announce(ctx, []AgentState{{Agent: "alice", State: "working"}}); err != nil {
		t.Fatal(err)
	}
	if err := a.Announce(ctx, []AgentState{{Agent: "bob", State: "idle"}}); !errors.Is(err, ErrBadConfig) {
		t.Fatalf("announcing another host's agent returned %v, want ErrBadConfig", err)
	}
	teamIs(t, b, "alice@a=working ann@a bob@b")
	var team []Member
	// For several lifetimes of a heartbeat key, a stays reachable.
	for until := time.Now().Add(time.Second); time.Now().Before(until); {
		if team, _ = b.Team(ctx); describe(team) != "alice@a=working ann@a bob@b" {
			t.Fatalf("with its heartbeat running, a shows as %q", describe(team))
		}
	}

	a.Close() // no goodbye: only the heartbeat stops
	waitFor(t, 10*time.Second, "a's agents unreachable", func() bool {
		team, err := b.Team(ctx)
		return err == nil && describe(team) == "alice@a(unreachable)=working ann@a(unreachable) bob@b"
	})

	// An unreachable host still holds its agents' mail: taking one is refused.
	_, err = joinWith(s, "c", fast("ann"))
	var claimed *AgentClaimed
	if !errors.As(err, &claimed) || claimed.Reachable {
		t.Fatalf("claiming an unreachable host's agent returned %v, want *AgentClaimed naming it unreachable", err)
	}
}

func TestLockIsExclusiveAcrossHosts(t *testing.T) {
	s := startFastHub(t, t.TempDir())
	fast := JoinConfig{RulesText: []byte("rules v1\n"), beat: fastBeat}
	cfgA, cfgB := fast, fast
	cfgA.Agents, cfgB.Agents = []string{"alice"}, []string{"bob"}
	a, err := joinWith(s, "a", cfgA)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := joinWith(s, "b", cfgB)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := ctxFor(t, 20*time.Second)

	la, err := a.Lock(ctx, "deploy", "alice")
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Lock(ctx, "deploy", "bob")
	var held *LockHeld
	if !errors.As(err, &held) || held.Owner != "alice" || held.Host != "a" {
		t.Fatalf("second lock returned %v, want *LockHeld by alice on a", err)
	}
	if err := b.ForceUnlock(ctx, "deploy"); !errors.As(err, &held) || !held.Reachable {
		t.Fatalf("forcing a live host's lock returned %v, want *LockHeld with a reachable host", err)
	}
	if err := a.Unlock(ctx, la); err != nil {
		t.Fatal(err)
	}
	lb, err := b.Lock(ctx, "deploy", "bob")
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	if err := a.Unlock(ctx, la); !errors.Is(err, ErrLockLost) {
		t.Fatalf("releasing a lock taken again by b returned %v, want ErrLockLost", err)
	}

	// b dies holding the lock; once it is unreachable, a may force it.
	b.Close()
	waitFor(t, 10*time.Second, "b's lock forced", func() bool { return a.ForceUnlock(ctx, "deploy") == nil })
	if _, err := a.Lock(ctx, "deploy", "alice"); err != nil {
		t.Fatalf("lock after a forced release: %v", err)
	}
	_ = lb
}

func TestSharedValuesCompareAndSwap(t *testing.T) {
	s := startHub(t, t.TempDir())
	a := join(t, s, "a", "alice")
	b := join(t, s, "b", "bob")
	ctx := ctxFor(t, 10*time.Second)
	if _, _, err := a.Get(ctx, "plan"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get of a missing key returned %v, want ErrNotFound", err)
	}
	rev, err := a.Update(ctx, "plan", []byte("v1"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Update(ctx, "plan", []byte("b's v1"), 0); !errors.Is(err, ErrRevisionChanged) {
		t.Fatalf("creating an existing key returned %v, want ErrRevisionChanged", err)
	}
	v, got, err := b.Get(ctx, "plan")
	if err != nil || string(v) != "v1" || got != rev {
		t.Fatalf("b reads %q at %d (%v), want v1 at %d", v, got, err, rev)
	}
	if _, err := b.Update(ctx, "plan", []byte("v2"), rev); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Update(ctx, "plan", []byte("a's v2"), rev); !errors.Is(err, ErrRevisionChanged) {
		t.Fatalf("update from a stale revision returned %v, want ErrRevisionChanged", err)
	}
	if _, err := a.Put(ctx, "plan", []byte("v3")); err != nil {
		t.Fatal(err)
	}
	if v, _, _ := b.Get(ctx, "plan"); string(v) != "v3" {
		t.Fatalf("b reads %q after a's put, want v3", v)
	}
}

func TestTheFirstHostToJoinATeamWithNoneUpSetsItsRules(t *testing.T) {
	s := startFastHub(t, t.TempDir())
	v1 := JoinConfig{Agents: []string{"alice"}, RulesText: []byte("rules v1\n"), beat: fastBeat}
	a, err := joinWith(s, "a", v1)
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	v2 := JoinConfig{Agents: []string{"bob"}, RulesText: []byte("rules v2\n"), beat: fastBeat}
	var b *Conn
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err = joinWith(s, "b", v2)
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond) // until a's heartbeat expires
	}
	if err != nil {
		t.Fatalf("the rules of a team with no host up were not replaced: %v", err)
	}
	defer b.Close()
	if _, err := joinWith(s, "c", JoinConfig{Agents: []string{"carol"}, RulesText: []byte("rules v1\n"), beat: fastBeat}); !errors.As(err, new(*RulesMismatch)) {
		t.Errorf("the old rules while b is up: %v, want *RulesMismatch", err)
	}
}

// TestAHostThatCannotTakeItsMailSaysSoAndLetsItsHeartbeatLapse: when the
// hub loses the mail stream, the host hears why (Trouble), and the others
// see it unreachable rather than alive and deaf; both undo themselves once
// the stream is back.
func TestAHostThatCannotTakeItsMailSaysSoAndLetsItsHeartbeatLapse(t *testing.T) {
	svc := &withAdmin{TeamService: TeamService{beat: fastBeat}}
	s := startHubWith(t, embedded.Config{Dir: t.TempDir(), Service: svc}, TeamService{})
	troubles := make(chan error, 16)
	cfg := JoinConfig{Agents: []string{"bob"}, RulesText: []byte("rules v1\n"), beat: fastBeat,
		Trouble: func(err error) { troubles <- err }}
	b, err := joinWith(s, "b", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	a, err := joinWith(s, "a", JoinConfig{Agents: []string{"alice"}, RulesText: []byte("rules v1\n"), beat: fastBeat})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	got := receiveInto(t, b, nil)

	js, err := jetstream.New(svc.admin)
	if err != nil {
		t.Fatal(err)
	}
	if err := js.DeleteStream(ctxFor(t, 5*time.Second), "SB_main"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-troubles:
		if err == nil || !strings.Contains(err.Error(), "take mail") {
			t.Fatalf("trouble %v, want taking mail", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no trouble reported within 30s")
	}
	ctx := ctxFor(t, 60*time.Second)
	waitFor(t, 10*time.Second, "b unreachable to a", func() bool {
		team, err := a.Team(ctx)
		return err == nil && strings.Contains(describe(team), "bob@b(unreachable)")
	})

	// The stream is back: b makes its consumer again, mail flows, the
	// trouble clears, b beats again.
	if err := svc.Prepare(ctx, svc.admin); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-troubles:
		if err != nil {
			t.Fatalf("trouble %v, want it cleared", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the trouble did not clear within 30s")
	}
	if err := a.Publish(ctx, Copy{ID: "m1", To: "bob", From: "alice"}); err != nil {
		t.Fatal(err)
	}
	if d := next(t, got, "mail after the stream came back"); d.ID != "m1" {
		t.Fatalf("delivered %+v, want m1", d)
	}
	waitFor(t, 10*time.Second, "b reachable again", func() bool {
		team, err := a.Team(ctx)
		return err == nil && strings.Contains(describe(team), "bob@b") && !strings.Contains(describe(team), "unreachable")
	})
}

// TestAHostHearsOfTheTeamAsItChanges: a host's view of the team is pushed
// to it by the hub, so that another host's new agent and state show at
// once, with nothing read.
func TestAHostHearsOfTheTeamAsItChanges(t *testing.T) {
	s := startHub(t, t.TempDir())
	a := join(t, s, "a", "alice")
	b := join(t, s, "b", "bob")
	waitFor(t, 10*time.Second, "a's view of the team", func() bool {
		_, ok := a.view.allClaims(a.names)
		return ok
	})
	ctx := ctxFor(t, 10*time.Second)
	for len(a.Changed()) > 0 {
		<-a.Changed()
	}
	if err := b.SetAgents(ctx, []string{"bob", "bea"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Announce(ctx, []AgentState{{Agent: "bea", State: "busy"}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-a.Changed():
	case <-time.After(10 * time.Second):
		t.Fatal("a did not hear of b's new agent within 10s")
	}
	waitFor(t, 10*time.Second, "bea, busy, in a's team", func() bool {
		team, err := a.Team(ctx)
		return err == nil && strings.Contains(describe(team), "bea@b=busy")
	})
	if denied := a.stalled.Load(); denied {
		t.Fatal("a's watches were refused")
	}
}

// TestAConnectionTheServerEndsIsLost: a subject past the server's control
// line is answered with an error and the connection closed for good, which
// no reconnect mends: the Conn says so, and why, for its owner to join
// again; and the Conn's own keys never make such a subject.
func TestAConnectionTheServerEndsIsLost(t *testing.T) {
	s := startHub(t, t.TempDir())
	a := join(t, s, "a", "alice")
	ctx := ctxFor(t, 10*time.Second)
	if _, err := a.Put(ctx, strings.Repeat("k", 5000), []byte("1")); !errors.Is(err, ErrBadName) {
		t.Fatalf("a key of 5,000 bytes: %v; want it refused before it reaches the server", err)
	}
	select {
	case <-a.Lost():
		t.Fatalf("the connection was lost to a refused key: %v", a.LostErr())
	default:
	}
	_ = a.nc.Publish(strings.Repeat("x", 5000), nil) // as a host's other code could
	select {
	case <-a.Lost():
	case <-time.After(10 * time.Second):
		t.Fatal("the server ended the connection, and the Conn did not say it is lost")
	}
	if err := a.LostErr(); err == nil || !strings.Contains(strings.ToLower(err.Error()), "control line") {
		t.Fatalf("lost because of %v; want the server's reason", err)
	}
}

// TestAHubJustStartedAgainStillRefusesOtherRulesWhileAHostIsUp: a hub
// that has just started again has not heard every host that is up yet; a
// host that joins with other rules then is refused once the hub has
// listened a beat and a half, rather than taking the team's rules from
// under the host that is up.
func TestAHubJustStartedAgainStillRefusesOtherRulesWhileAHostIsUp(t *testing.T) {
	dir := t.TempDir()
	s := startHubWith(t, embedded.Config{Dir: dir, Listen: "127.0.0.1:0"}, TeamService{})
	a, err := joinWith(s, "a", JoinConfig{Agents: []string{"alice"}, RulesText: []byte("allow: all\ndeny: none\n")})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	addr := s.Addr()
	s.Close()
	s = startHubWith(t, embedded.Config{Dir: dir, Listen: addr}, TeamService{})
	ctx := ctxFor(t, 30*time.Second)
	b, err := Join(ctx, s.URL("b"), JoinConfig{Host: "b", Agents: []string{"bob"}, RulesText: []byte("allow: all\ndeny: bob\n")})
	var m *RulesMismatch
	if !errors.As(err, &m) {
		if err == nil {
			b.Close()
		}
		t.Fatalf("a host with other rules joined a hub just started again while host a is up: %v; want *RulesMismatch", err)
	}
}
