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
)

// rawConn connects with a host's credentials but none of Conn's care, as
// hostile code on that host would.
type rawConn struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	mu     sync.Mutex
	denied []string
}

func dialRaw(t *testing.T, rawURL, host string) *rawConn {
	t.Helper()
	r := &rawConn{}
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
	r.js, _ = jetstream.New(nc)
	return r
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
	if _, err := r.js.Publish(ctx, "sb.main.mail.b.bob", []byte("forged")); err == nil {
		t.Fatal("host a published mail under host b's name")
	}
	waitFor(t, 5*time.Second, "a permission violation for b's subject", func() bool { return r.deniedOn("sb.main.mail.b.bob") })

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

func TestForgedSenderIsRejected(t *testing.T) {
	s := startHub(t, t.TempDir())
	a := join(t, s, "a", "alice")
	rejected := make(chan Delivered, 1)
	b, err := joinWith(s, "b", JoinConfig{Agents: []string{"bob"}, RulesText: []byte("rules v1\n"),
		Rejected: func(d Delivered, _ error) { rejected <- d }})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got := receiveInto(t, b, nil)
	ctx := ctxFor(t, 5*time.Second)
	// a does not run carol: a copy from carol is a lie.
	if err := a.Publish(ctx, Copy{ID: "m1", To: "bob", From: "carol"}); err != nil {
		t.Fatal(err)
	}
	if err := a.Publish(ctx, Copy{ID: "m2", To: "bob", From: "alice"}); err != nil {
		t.Fatal(err)
	}
	select {
	case d := <-rejected:
		if d.ID != "m1" || d.From != "carol" || d.Host != "a" {
			t.Fatalf("rejected %+v, want m1 from carol on a", d)
		}
	case <-time.After(60 * time.Second):
		// It is tried a few times first: a sender may be announced late.
		t.Fatal("the forged copy was not rejected within 60s")
	}
	select {
	case d := <-got:
		if d.ID != "m2" {
			t.Fatalf("delivered %+v, want only m2", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the true copy did not arrive within 10s")
	}
}

func TestNonLoopbackWithoutTLSWarns(t *testing.T) {
	s, err := Start(ctxFor(t, 10*time.Second), ServerConfig{Dir: t.TempDir(), Listen: "0.0.0.0:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
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
	s2, err := Start(ctxFor(t, 10*time.Second), ServerConfig{Dir: dir, Listen: s.Addr()})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if after := s2.URL("a"); after != before {
		t.Fatalf("URL changed across a restart: %s, then %s", before, after)
	}
	c, err := Join(ctxFor(t, 5*time.Second), before, JoinConfig{Agents: []string{"alice"}})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}
