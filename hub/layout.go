package hub

import (
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// The team's stream and buckets, as the hub makes them when it starts. A
// host may not make or change them; it joins a NATS server that no
// switchboard hub runs by making those that are missing, when that server
// lets it.

// mailStreamConfig is the team's mail stream: a work queue, so that a copy
// leaves the hub when its recipient's host acknowledged it, and no two
// consumers take the same host's mail.
func (n names) mailStreamConfig() jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:       n.stream(),
		Subjects:   []string{n.mailAll()},
		Storage:    jetstream.FileStorage,
		Retention:  jetstream.WorkQueuePolicy,
		MaxAge:     mailKeep,
		Duplicates: dedupWindow,
	}
}

// bucketConfigs are the team's buckets; beat is the hosts' heartbeat, of
// which the heartbeat bucket keeps three. Each value is bounded, so that no
// host makes every other read megabytes: a state, a claim, a beat and a
// lock are a line of JSON; the rules file and a shared value (the board
// among them) up to a mebibyte.
func (n names) bucketConfigs(beat time.Duration) []jetstream.KeyValueConfig {
	small := int32(4 << 10)
	large := int32(1 << 20)
	limits := map[string]int32{
		n.presence(): small, n.heartbeat(): small, n.claims(): small, n.locks(): small,
		n.rules(): large, n.shared(): large,
	}
	out := make([]jetstream.KeyValueConfig, 0, len(n.buckets()))
	for _, bucket := range n.buckets() {
		kv := jetstream.KeyValueConfig{Bucket: bucket, Storage: jetstream.FileStorage, MaxValueSize: limits[bucket]}
		if bucket == n.heartbeat() {
			// Beats are worth nothing once three old: kept in memory,
			// a team at rest writes nothing on the hub's disk.
			kv.TTL, kv.Storage = 3*beat, jetstream.MemoryStorage
		}
		out = append(out, kv)
	}
	return out
}
