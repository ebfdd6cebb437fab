package hub

import (
	"context"
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
