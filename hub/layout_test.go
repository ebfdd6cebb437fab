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
)

// earlierHub is a hub whose folder an earlier version made: the
// heartbeat bucket on disk, as it was then.
type earlierHub struct{ TeamService }

func (s earlierHub) Prepare(ctx context.Context, nc *nats.Conn) error {
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	n := names{"main"}
	if _, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: n.heartbeat(), Storage: jetstream.FileStorage, TTL: 3 * Heartbeat}); err != nil {
		return err
	}
	return s.TeamService.Prepare(ctx, nc)
}

// TestAHubStartedOnAnEarlierFolderKeepsItsBeatsInMemory: a team at rest
// writes nothing on the hub's disk, even on a hub whose folder an earlier
// version made; its hosts join as before.
func TestAHubStartedOnAnEarlierFolderKeepsItsBeatsInMemory(t *testing.T) {
	s := startHubWith(t, embedded.Config{Dir: t.TempDir(), Service: earlierHub{}}, TeamService{})
	a := join(t, s, "a", "alice")
	ctx := ctxFor(t, 10*time.Second)
	kv, err := a.js.KeyValue(ctx, a.names.heartbeat())
	if err != nil {
		t.Fatal(err)
	}
	st, err := kv.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.(*jetstream.KeyValueBucketStatus).StreamInfo().Config.Storage; got != jetstream.MemoryStorage {
		t.Fatalf("the heartbeat bucket is kept in %v, want memory", got)
	}
	teamIs(t, a, "alice@a")
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
