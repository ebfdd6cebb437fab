package hub

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"switchboard/hub/embedded"
	"switchboard/internal/release"
)

// earlierHub is a hub whose folder an earlier version made: the
// bucket of the hosts' beats on disk, as it was then.
type earlierHub struct{ withAdmin }

func (s *earlierHub) Prepare(ctx context.Context, nc *nats.Conn) error {
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	n := names{"main"}
	if _, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: n.retiredHeartbeats(), Storage: jetstream.FileStorage, TTL: 3 * Heartbeat}); err != nil {
		return err
	}
	return s.withAdmin.Prepare(ctx, nc)
}

// TestAHubStartedOnAnEarlierFolderDropsItsBucketOfBeats: a team at rest
// writes nothing on the hub's disk, even on a hub whose folder an earlier
// version made with a bucket of the hosts' beats: the bucket is gone, and
// hosts join and see each other as before.
func TestAHubStartedOnAnEarlierFolderDropsItsBucketOfBeats(t *testing.T) {
	hub := &earlierHub{}
	s := startHubWith(t, embedded.Config{Dir: t.TempDir(), Service: hub}, TeamService{})
	a := join(t, s, "a", "alice")
	b := join(t, s, "b", "bob")
	ctx := ctxFor(t, 10*time.Second)
	js, err := jetstream.New(hub.admin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.Stream(ctx, kvStream(a.names.retiredHeartbeats())); !errors.Is(err, jetstream.ErrStreamNotFound) {
		t.Fatalf("the bucket of beats of an earlier version: %v, want it gone", err)
	}
	teamIs(t, a, "alice@a bob@b")
	teamIs(t, b, "alice@a bob@b")
}

// unsafeHub is a hub whose claims bucket takes roll-ups, as one the
// jetstream package made would (a server of one's own, prepared by an
// earlier version, say).
type unsafeHub struct{ TeamService }

func (s unsafeHub) Prepare(ctx context.Context, nc *nats.Conn) error {
	if err := s.TeamService.Prepare(ctx, nc); err != nil {
		return err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	if err := js.DeleteStream(ctx, "KV_SB_main_claims"); err != nil {
		return err
	}
	_, err = js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "SB_main_claims"})
	return err
}

// TestAHubWhoseBucketsTakeRollUpsIsNotJoined: one publish with a roll-up
// would wipe every host's claims there; a master refuses to join, and the
// look doctor takes (Dial) says why and what to do.
func TestAHubWhoseBucketsTakeRollUpsIsNotJoined(t *testing.T) {
	s := startHubWith(t, embedded.Config{Dir: t.TempDir(), Service: unsafeHub{}}, TeamService{})
	_, err := joinWith(s, "a", JoinConfig{Agents: []string{"alice"}, RulesText: []byte("r\n")})
	if !errors.Is(err, ErrUnsafeHub) || !strings.Contains(err.Error(), "KV_SB_main_claims takes roll-ups") || !strings.Contains(err.Error(), "hub serve") {
		t.Fatalf("join returned %v; want it refused, naming the bucket and what to do", err)
	}
	if _, err := Dial(ctxFor(t, 5*time.Second), s.URL("a"), JoinConfig{}); !errors.Is(err, ErrUnsafeHub) {
		t.Fatalf("a look at the hub returned %v; want the same refusal", err)
	}
}

// otherReleaseHub is a hub that another release of switchboard prepared.
type otherReleaseHub struct{ TeamService }

// otherRelease is a release number no build of this source has.
const otherRelease = "0.0.1-other"

func (s otherReleaseHub) Prepare(ctx context.Context, nc *nats.Conn) error {
	if err := s.TeamService.Prepare(ctx, nc); err != nil {
		return err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	cfg := names{"main"}.mailStreamConfig()
	cfg.Metadata = map[string]string{releaseKey: otherRelease}
	_, err = js.UpdateStream(ctx, cfg)
	return err
}

// TestAHubOfAnotherReleaseSaysSoToTheHostsItRefuses: a host of this
// release is refused by a hub another release prepared, told both
// releases and what to do, before it claims anything there; and a hub of
// its own release it joins.
func TestAHubOfAnotherReleaseSaysSoToTheHostsItRefuses(t *testing.T) {
	s := startHubWith(t, embedded.Config{Dir: t.TempDir(), Service: otherReleaseHub{}}, TeamService{})
	_, err := joinWith(s, "a", JoinConfig{Agents: []string{"alice"}, RulesText: []byte("r\n")})
	if !errors.Is(err, ErrOtherRelease) || !strings.Contains(err.Error(), "switchboard "+otherRelease) ||
		!strings.Contains(err.Error(), "this host runs "+release.Number) || !strings.Contains(err.Error(), "run one release") {
		t.Fatalf("join returned %v; want it refused, naming both releases and what to do", err)
	}
	if _, err := Dial(ctxFor(t, 5*time.Second), s.URL("a"), JoinConfig{}); !errors.Is(err, ErrOtherRelease) {
		t.Fatalf("a look at the hub returned %v; want the same refusal", err)
	}

	same := startHub(t, t.TempDir())
	join(t, same, "a", "alice")
}
