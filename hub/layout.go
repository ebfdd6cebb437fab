package hub

import (
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"switchboard/internal/release"
)

// The team's stream and buckets, as the hub makes them when it starts. A
// host may not make or change them. Each refuses, of any publisher, a
// roll-up (which would purge every key of a bucket, other hosts' claims
// among them), and, through the API, the purge or delete of a message:
// nothing in a host's grant reaches those verbs, and the stream refuses
// them even to a publisher whose grant would.

// mailStreamConfig is the team's mail stream: a work queue, so that a copy
// leaves the hub when its recipient's host acknowledged it, and no two
// consumers take the same host's mail.
func (n names) mailStreamConfig() jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        n.stream(),
		Subjects:    []string{n.mailAll()},
		Storage:     jetstream.FileStorage,
		Retention:   jetstream.WorkQueuePolicy,
		MaxAge:      mailKeep,
		Duplicates:  dedupWindow,
		AllowRollup: false,
		DenyDelete:  true,
		DenyPurge:   true,
		Metadata:    map[string]string{releaseKey: release.Number},
	}
}

// releaseKey names, in the mail stream's metadata, the release of
// switchboard that prepared the team's hub last: a host of another release
// is refused with both named (checkRelease), rather than failing on
// whatever the two releases lay out differently.
const releaseKey = "switchboard_release"

// checkRelease refuses a hub whose mail stream says another release of
// switchboard prepared it. A hub prepared before releases were stamped says
// none, and is taken.
func checkRelease(got jetstream.StreamConfig) error {
	theirs := got.Metadata[releaseKey]
	if theirs == "" || theirs == release.Number {
		return nil
	}
	return fmt.Errorf("%w: the team's hub was prepared by switchboard %s, and this host runs %s; run one release on the hub and on every host of the team", ErrOtherRelease, theirs, release.Number)
}

// bucketStreams are the streams of the team's buckets. Each is a
// key/value bucket as the jetstream package makes one (one value a key,
// read directly from any node), but that takes no roll-up: a key/value
// bucket the package makes takes one from any writer of any key. The
// claims, states and shared values are told, once stored, on the team's
// feed (names.feed). Each value is bounded, so that no host makes every
// other read megabytes: a state, a claim, a beat and a lock are a line of
// JSON; the rules file and a shared value (the board among them) up to a
// mebibyte.
func (n names) bucketStreams() []jetstream.StreamConfig {
	small := int32(maxSmallValue)
	large := int32(maxLargeValue)
	limits := map[string]int32{
		n.presence(): small, n.claims(): small, n.locks(): small,
		n.rules(): large, n.shared(): large,
	}
	fed := map[string]bool{n.claims(): true, n.presence(): true, n.shared(): true}
	out := make([]jetstream.StreamConfig, 0, len(n.buckets()))
	for _, bucket := range n.buckets() {
		cfg := jetstream.StreamConfig{
			Name:              kvStream(bucket),
			Subjects:          []string{kvSubject(bucket, ">")},
			MaxMsgsPerSubject: 1,
			MaxBytes:          -1,
			MaxMsgs:           -1,
			MaxConsumers:      -1,
			MaxMsgSize:        limits[bucket],
			Storage:           jetstream.FileStorage,
			Discard:           jetstream.DiscardNew,
			Duplicates:        2 * time.Minute,
			AllowDirect:       true,
			AllowRollup:       false,
			DenyDelete:        true,
			DenyPurge:         true,
		}
		if fed[bucket] {
			cfg.RePublish = &jetstream.RePublish{Source: kvSubject(bucket, ">"), Destination: n.feed(bucket) + ".>"}
		}
		out = append(out, cfg)
	}
	return out
}

// Bounds of a bucket's value, in bytes.
const (
	maxSmallValue = 4 << 10
	maxLargeValue = 1 << 20
)

// checkStream refuses a stream a host would join that lets a publisher
// roll it up, or lets the API purge or delete its messages: one host could
// then wipe every host's claims, presence or mail. A feed that is missing
// would leave this host's view of the team as it was at join.
func checkStream(got jetstream.StreamConfig, want jetstream.StreamConfig) error {
	switch {
	case got.AllowRollup:
		return fmt.Errorf("%w: %s takes roll-ups, with which one host may wipe every other host's keys", ErrUnsafeHub, got.Name)
	case !got.DenyPurge || !got.DenyDelete:
		return fmt.Errorf("%w: %s lets its messages be purged or deleted", ErrUnsafeHub, got.Name)
	case want.RePublish != nil && (got.RePublish == nil || *got.RePublish != *want.RePublish):
		return fmt.Errorf("%w: %s does not tell the team of its changes on %s", ErrUnsafeHub, got.Name, want.RePublish.Destination)
	}
	return nil
}
