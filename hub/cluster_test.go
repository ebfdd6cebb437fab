package hub

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"switchboard/hub/embedded"
)

// TestAClusterWithoutALeaderSaysItIsNotReady: a node of a cluster of hubs
// whose peers are not up has no leader, and JetStream answers nothing
// there, not even that it cannot; a host that joins it hears within a
// couple of seconds that the hub is not ready yet (to try again soon),
// rather than waiting out its whole join.
func TestAClusterWithoutALeaderSaysItIsNotReady(t *testing.T) {
	s := startHubWith(t, embedded.Config{Dir: t.TempDir(), Cluster: "127.0.0.1:" + strconv.Itoa(freePort(t)),
		Peers: []string{"nats://127.0.0.1:" + strconv.Itoa(freePort(t)), "nats://127.0.0.1:" + strconv.Itoa(freePort(t))}},
		TeamService{Replicas: 3})
	// Its own URL: the others' name its peers' ports for hosts, which
	// these peers, never started, have not.
	own, _, _ := strings.Cut(s.URL("a"), ",")
	began := time.Now()
	_, err := Join(ctxFor(t, 10*time.Second), own, JoinConfig{Agents: []string{"alice"}, RulesText: []byte("rules v1\n")})
	took := time.Since(began)
	if !errors.Is(err, ErrNotReady) || !errors.Is(err, ErrUnreachable) {
		t.Fatalf("joining a cluster without a leader returned %v after %s; want ErrNotReady, an ErrUnreachable", err, took.Round(time.Millisecond))
	}
	if took > 5*time.Second {
		t.Errorf("joining a cluster without a leader took %s to say it is not ready; want a couple of seconds", took.Round(time.Millisecond))
	}
}
