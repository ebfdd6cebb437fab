package hub

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"switchboard/hub/embedded"
)

// Server is an embedded hub serving the team of the tests.
type Server = embedded.Server

// startHub runs a hub on a free loopback port with its own folder.
func startHub(t *testing.T, dir string) *Server {
	t.Helper()
	return startHubWith(t, embedded.Config{Dir: dir}, TeamService{})
}

// fastBeat is the heartbeat of the tests that wait for a host to become
// unreachable.
const fastBeat = 200 * time.Millisecond

// startFastHub runs a hub whose hosts beat every fastBeat.
func startFastHub(t *testing.T, dir string) *Server {
	t.Helper()
	return startHubWith(t, embedded.Config{Dir: dir}, TeamService{beat: fastBeat})
}

// startHubWith runs a hub of cfg serving svc (cfg's service, when it has
// one, serves in its place).
func startHubWith(t testing.TB, cfg embedded.Config, svc TeamService) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if cfg.Service == nil {
		cfg.Service = svc
	}
	s, err := embedded.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// withAdmin is a TeamService that keeps the hub's own connection at hand,
// for a test that acts as the hub.
type withAdmin struct {
	TeamService
	admin *nats.Conn
}

func (s *withAdmin) Prepare(ctx context.Context, nc *nats.Conn) error {
	s.admin = nc
	return s.TeamService.Prepare(ctx, nc)
}

// join joins host to the hub's team with the given agents and the same rules.
func join(t *testing.T, s *Server, host string, agents ...string) *Conn {
	t.Helper()
	c, err := joinWith(s, host, JoinConfig{Agents: agents, RulesText: []byte("rules v1\n")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func joinWith(s *Server, host string, cfg JoinConfig) (*Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return Join(ctx, s.URL(host), cfg)
}

// receiveInto runs Receive in the background, sending every delivered copy
// to the returned channel; handle may fail a copy first.
func receiveInto(t *testing.T, c *Conn, fail func(Delivered) error) <-chan Delivered {
	t.Helper()
	ch := make(chan Delivered, 10000)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = c.Receive(ctx, func(_ context.Context, d Delivered) error {
			if d.Refused != nil {
				return nil // noted: the hub terminates it
			}
			if fail != nil {
				if err := fail(d); err != nil {
					return err
				}
			}
			ch <- d
			return nil
		})
	}()
	t.Cleanup(func() { cancel(); <-done })
	return ch
}

// waitFor fails the test unless cond holds before the deadline.
func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", within, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
