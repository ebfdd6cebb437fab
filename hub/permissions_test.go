package hub

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"switchboard/hub/embedded"
)

// rawConn connects with a host's credentials but none of Conn's care, as
// hostile code on that host would.
type rawConn struct {
	host   string
	nc     *nats.Conn
	js     jetstream.JetStream
	mu     sync.Mutex
	denied []string
}

func dialRaw(t *testing.T, rawURL, host string) *rawConn {
	t.Helper()
	r := &rawConn{host: host}
	nc, err := nats.Connect(rawURL,
		nats.CustomInboxPrefix(inboxPrefix(host)),
		nats.PermissionErrOnSubscribe(true),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.denied = append(r.denied, err.Error())
		}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	r.nc = nc
	r.js, _ = jetstream.NewWithAPIPrefix(nc, names{"main"}.api())
	return r
}

// write asks the hub to write, as the host's master would, with headers
// and data of the raw connection's choosing.
func (r *rawConn) write(ctx context.Context, headers map[string]string, data []byte) error {
	m := nats.NewMsg(names{"main"}.writeRequest(r.host))
	for k, v := range headers {
		m.Header.Set(k, v)
	}
	m.Data = data
	answer, err := r.nc.RequestMsgWithContext(ctx, m)
	if err != nil {
		return err
	}
	return writeErr(answer)
}

func (r *rawConn) deniedOn(subject string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, d := range r.denied {
		if strings.Contains(d, "Permissions Violation") && strings.Contains(d, subject) {
			return true
		}
	}
	return false
}

func TestHostCannotPublishAsAnotherHost(t *testing.T) {
	s := startHub(t, t.TempDir())
	join(t, s, "a", "alice")
	join(t, s, "b", "bob")
	r := dialRaw(t, s.URL("a"), "a")

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if _, err := r.js.Publish(ctx, "sb.main.mail.b.b.bob", []byte("forged")); err == nil {
		t.Fatal("host a published mail under host b's name")
	}
	waitFor(t, 5*time.Second, "a permission violation for b's subject", func() bool { return r.deniedOn("sb.main.mail.b.b.bob") })

	ctx2, cancel2 := context.WithTimeout(context.Background(), time.Second)
	defer cancel2()
	kv, err := r.js.KeyValue(ctx2, "SB_main_presence")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx2, "b.mallory", []byte(`{}`)); err == nil {
		t.Fatal("host a wrote presence for host b")
	}
	waitFor(t, 5*time.Second, "a permission violation for b's presence", func() bool { return r.deniedOn("$KV.SB_main_presence.b.mallory") })

	if _, err := r.nc.SubscribeSync(inboxPrefix("b") + ".>"); err == nil {
		// The server refuses asynchronously; the refusal must arrive.
		waitFor(t, 5*time.Second, "a permission violation for b's replies", func() bool { return r.deniedOn(inboxPrefix("b")) })
	}
}

func TestWrongPasswordCannotConnect(t *testing.T) {
	s := startHub(t, t.TempDir())
	u, err := url.Parse(s.URL("a"))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword("a", "guessed")
	if _, err := nats.Connect(u.String()); !errors.Is(err, nats.ErrAuthorization) {
		t.Fatalf("connect with a wrong password returned %v, want an authorization error", err)
	}
	_, err = Join(ctxFor(t, 5*time.Second), u.String(), JoinConfig{Agents: []string{"alice"}})
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("join with a wrong password returned %v, want ErrUnreachable", err)
	}
	// b's password does not open a's name either.
	ub, _ := url.Parse(s.URL("b"))
	pb, _ := ub.User.Password()
	u.User = url.UserPassword("a", pb)
	if _, err := nats.Connect(u.String()); !errors.Is(err, nats.ErrAuthorization) {
		t.Fatalf("host a connected with host b's password: %v", err)
	}
}

func TestURLOfAnotherHostIsRefused(t *testing.T) {
	s := startHub(t, t.TempDir())
	_, err := Join(ctxFor(t, 5*time.Second), s.URL("b"), JoinConfig{Host: "a"})
	if !errors.Is(err, ErrBadConfig) {
		t.Fatalf("join as a with b's URL returned %v, want ErrBadConfig", err)
	}
}

func TestOtherTeamIsDenied(t *testing.T) {
	s := startHub(t, t.TempDir())
	_, err := joinWith(s, "a", JoinConfig{Team: "other", Agents: []string{"alice"}})
	if !errors.Is(err, ErrDenied) {
		t.Fatalf("join of a team the hub does not serve returned %v, want ErrDenied", err)
	}
}

// receiveAll runs Receive in the background, sending every copy it hands
// over, refused ones too, to the returned channel.
func receiveAll(t *testing.T, c *Conn) <-chan Delivered {
	t.Helper()
	ch := make(chan Delivered, 10000)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = c.Receive(ctx, func(_ context.Context, d Delivered) error { ch <- d; return nil })
	}()
	t.Cleanup(func() { cancel(); <-done })
	return ch
}

// next returns the next copy from ch, failing after 10 s.
func next(t *testing.T, ch <-chan Delivered, what string) Delivered {
	t.Helper()
	select {
	case d := <-ch:
		return d
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not arrive within 10s", what)
		return Delivered{}
	}
}

func TestForgedSenderIsRefusedAtOnce(t *testing.T) {
	s := startHub(t, t.TempDir())
	a := join(t, s, "a", "alice")
	b := join(t, s, "b", "bob")
	got := receiveAll(t, b)
	ctx := ctxFor(t, 5*time.Second)
	// a does not run carol: a copy from carol is a lie.
	if err := a.Publish(ctx, Copy{ID: "m1", To: "bob", From: "carol"}); err != nil {
		t.Fatal(err)
	}
	if err := a.Publish(ctx, Copy{ID: "m2", To: "bob", From: "alice"}); err != nil {
		t.Fatal(err)
	}
	d := next(t, got, "the forged copy")
	if d.ID != "m1" || !errors.Is(d.Refused, ErrForged) || !strings.Contains(d.Refused.Error(), "carol") {
		t.Fatalf("first copy %+v, want m1 refused as forged, naming carol", d)
	}
	if d = next(t, got, "the true copy"); d.ID != "m2" || d.Refused != nil || d.Sender.Host != "a" {
		t.Fatalf("second copy %+v, want m2 from alice of a, not refused", d)
	}
}

// TestAHostCannotSendAsAnAgentAnotherHostRuns: b writes a claim of a's
// agent by hand, and publishes a copy as it. The hub stored a's claim first:
// the copy is refused, and the honest copy behind it arrives.
func TestAHostCannotSendAsAnAgentAnotherHostRuns(t *testing.T) {
	s := startHub(t, t.TempDir())
	a := join(t, s, "a", "master_agent", "alice")
	join(t, s, "b", "bob")
	got := receiveAll(t, a)
	r := dialRaw(t, s.URL("b"), "b")
	ctx := ctxFor(t, 10*time.Second)
	// Its own keys, written by the hub on its behalf, as any host's are.
	if err := r.write(ctx, map[string]string{writeOp: writePut, writeBucket: "SB_main_claims", writeKey: "held.master_agent.b"}, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if err := r.write(ctx, map[string]string{writeOp: writePut, writeBucket: "SB_main_presence", writeKey: "b.master_agent"}, []byte(`{"state":"idle"}`)); err != nil {
		t.Fatal(err)
	}
	if err := r.write(ctx, map[string]string{writeOp: writeMail, writeToHost: "a", writeTo: "alice", headerID: "forged-1", headerFrom: "master_agent"}, []byte("FORGED")); err != nil {
		t.Fatal(err)
	}
	d := next(t, got, "the forged copy")
	if d.ID != "forged-1" || !errors.Is(d.Refused, ErrForged) || !strings.Contains(d.Refused.Error(), "host a") {
		t.Fatalf("copy %+v, want forged-1 refused, naming host a as master_agent's", d)
	}
	waitFor(t, 10*time.Second, "master_agent on a alone", func() bool {
		team, err := a.Team(ctx)
		seen := describe(team)
		return err == nil && strings.Contains(seen, "master_agent@a") && !strings.Contains(seen, "master_agent@b")
	})
}

// TestAHostThatLetAnAgentGoCannotSendAsIt: what an agent sent while its
// host held it arrives; what its host sends as it after letting it go does
// not.
func TestAHostThatLetAnAgentGoCannotSendAsIt(t *testing.T) {
	s := startHub(t, t.TempDir())
	a := join(t, s, "a", "alice", "ann")
	b := join(t, s, "b", "bob")
	ctx := ctxFor(t, 10*time.Second)
	if err := a.Publish(ctx, Copy{ID: "before", To: "bob", From: "ann"}); err != nil {
		t.Fatal(err)
	}
	if err := a.SetAgents(ctx, []string{"alice"}, nil); err != nil {
		t.Fatal(err)
	}
	r := dialRaw(t, s.URL("a"), "a")
	if err := r.write(ctx, map[string]string{writeOp: writeMail, writeToHost: "b", writeTo: "bob", headerID: "after", headerFrom: "ann"}, nil); err != nil {
		t.Fatal(err)
	}
	got := receiveAll(t, b)
	if d := next(t, got, "the copy sent before"); d.ID != "before" || d.Refused != nil {
		t.Fatalf("first copy %+v, want the one sent before, taken", d)
	}
	if d := next(t, got, "the copy sent after"); d.ID != "after" || !errors.Is(d.Refused, ErrForged) {
		t.Fatalf("second copy %+v, want the one sent after, refused", d)
	}
}

// TestAHostMayNotMakeOrChangeStreamsOrConsumers: the hub makes the team's
// stream and buckets and keeps every consumer; a host that tries to make a
// consumer of its own that takes everyone's mail, or to change the stream,
// is refused.
func TestAHostMayNotMakeOrChangeStreamsOrConsumers(t *testing.T) {
	s := startHub(t, t.TempDir())
	a := join(t, s, "a", "alice")
	join(t, s, "b", "bob")
	r := dialRaw(t, s.URL("b"), "b")
	denied := func(what string, try func(context.Context) error) {
		t.Helper()
		if err := try(ctxFor(t, time.Second)); err == nil {
			t.Errorf("host b %s", what)
		}
	}
	denied("made its consumer take every host's mail", func(ctx context.Context) error {
		_, err := r.js.CreateOrUpdateConsumer(ctx, "SB_main", jetstream.ConsumerConfig{Durable: "b", FilterSubject: "sb.main.mail.>"})
		return err
	})
	denied("made a consumer of host a's mail", func(ctx context.Context) error {
		_, err := r.js.CreateOrUpdateConsumer(ctx, "SB_main", jetstream.ConsumerConfig{Name: "spy", FilterSubject: "sb.main.mail.a.>"})
		return err
	})
	denied("changed the mail stream", func(ctx context.Context) error {
		_, err := r.js.UpdateStream(ctx, jetstream.StreamConfig{Name: "SB_main", Subjects: []string{"sb.main.mail.>"}, MaxMsgs: 1})
		return err
	})
	denied("deleted the claims", func(ctx context.Context) error { return r.js.DeleteStream(ctx, "KV_SB_main_claims") })
	denied("purged the mail", func(ctx context.Context) error {
		s, err := r.js.Stream(ctx, "SB_main")
		if err != nil {
			return err
		}
		return s.Purge(ctx)
	})
	ctx := ctxFor(t, 10*time.Second)
	// And mail still flows.
	got := receiveInto(t, a, nil)
	b2, err := Join(ctxFor(t, 5*time.Second), s.URL("c"), JoinConfig{Agents: []string{"carol"}, RulesText: []byte("rules v1\n")})
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	if err := b2.Publish(ctx, Copy{ID: "m1", To: "alice", From: "carol"}); err != nil {
		t.Fatal(err)
	}
	select {
	case d := <-got:
		if d.ID != "m1" {
			t.Fatalf("delivered %+v", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("mail stopped after the refused attempts")
	}
}

func TestNonLoopbackWithoutTLSWarns(t *testing.T) {
	s := startHubWith(t, embedded.Config{Dir: t.TempDir(), Listen: "0.0.0.0:0"}, TeamService{})
	w := s.Warnings()
	if len(w) != 1 || !strings.Contains(w[0], "clear text") {
		t.Fatalf("warnings %q, want one about clear text", w)
	}
	local := startHub(t, t.TempDir())
	if w := local.Warnings(); len(w) != 0 {
		t.Fatalf("a loopback hub warns %q", w)
	}
}

func TestRestartedHubKeepsURLs(t *testing.T) {
	dir := t.TempDir()
	s := startHub(t, dir)
	before := s.URL("a")
	s.Close()
	s2 := startHubWith(t, embedded.Config{Dir: dir, Listen: s.Addr()}, TeamService{})
	if after := s2.URL("a"); after != before {
		t.Fatalf("URL changed across a restart: %s, then %s", before, after)
	}
	c, err := Join(ctxFor(t, 5*time.Second), before, JoinConfig{Agents: []string{"alice"}})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}
