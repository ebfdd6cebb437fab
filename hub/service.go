package hub

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TeamService is the hub's side of one team, for a server that hosts join
// (an embedded hub serves it): what each host may do there, and the stream
// and buckets made before any host joins.
type TeamService struct {
	// Team is the team's name; "main" when empty.
	Team string
	// Replicas is how many nodes of a cluster of hubs keep the team's
	// stream and buckets; 1 when 0.
	Replicas int
	// beat is the hosts' heartbeat; tests shorten it.
	beat time.Duration
}

func (s TeamService) withDefaults() (TeamService, error) {
	if s.Team == "" {
		s.Team = "main"
	}
	if s.beat <= 0 {
		s.beat = Heartbeat
	}
	return s, checkName("team", s.Team)
}

// Permissions are the subjects host may publish to and subscribe to; doc.go
// says what each line lets it do.
func (s TeamService) Permissions(host string) (publish, subscribe []string) {
	s, _ = s.withDefaults()
	n := names{s.Team}
	mail := n.stream()
	pub := []string{
		// Mail, to any host, only under the host's own name.
		"sb." + n.team + ".mail.*." + host + ".>",
		// Presence, claims and heartbeat, only under the host's own keys.
		kvSubject(n.presence(), host+".>"),
		kvSubject(n.claims(), kindHeld+".*."+host),
		kvSubject(n.claims(), kindLeft+".*."+host),
		kvSubject(n.heartbeat(), host),
		// Rules, locks and shared values are the team's.
		kvSubject(n.rules(), ">"),
		kvSubject(n.locks(), ">"),
		kvSubject(n.shared(), ">"),
		// The host's own durable consumer: make it, with the filter of the
		// copies addressed to it and no other (the server checks that the
		// filter in the request is the one in its subject), inspect it,
		// pull, acknowledge.
		"$JS.API.CONSUMER.CREATE." + mail + "." + host + "." + n.mailFor(host),
		"$JS.API.CONSUMER.INFO." + mail + "." + host,
		"$JS.API.CONSUMER.MSG.NEXT." + mail + "." + host,
		"$JS.ACK." + mail + "." + host + ".>",
		"$JS.ACK.*.*." + mail + "." + host + ".>",
	}
	streams := []string{mail}
	for _, b := range n.buckets() {
		streams = append(streams, kvStream(b))
	}
	for _, st := range streams {
		// Reading a stream's configuration and state; never making,
		// changing or purging one.
		pub = append(pub, "$JS.API.STREAM.INFO."+st)
	}
	for _, b := range []string{n.claims(), n.presence(), n.shared()} {
		// Watching the claims, states and shared values (ordered consumers of their own,
		// which take nothing from anyone: a bucket is no work queue).
		pub = append(pub,
			"$JS.API.CONSUMER.CREATE."+kvStream(b),
			"$JS.API.CONSUMER.CREATE."+kvStream(b)+".>",
			"$JS.API.CONSUMER.INFO."+kvStream(b)+".>",
			"$JS.API.CONSUMER.DELETE."+kvStream(b)+".>",
			"$JS.FC."+kvStream(b)+".>")
	}
	for _, b := range n.buckets() {
		// Reading any key of the team's buckets.
		pub = append(pub,
			"$JS.API.DIRECT.GET."+kvStream(b),
			"$JS.API.DIRECT.GET."+kvStream(b)+".>",
			"$JS.API.STREAM.MSG.GET."+kvStream(b))
	}
	return pub, []string{inboxPrefix(host) + ".>"}
}

// Prepare makes the team's mail stream and buckets, or checks that those of
// an earlier start are still there.
func (s TeamService) Prepare(ctx context.Context, nc *nats.Conn) error {
	s, err := s.withDefaults()
	if err != nil {
		return err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return fmt.Errorf("jetstream: %w", err)
	}
	// Made side by side: in a cluster, each waits for its own group of
	// nodes to elect a leader, seconds, which one after the other would
	// add up to most of a minute before a host may join.
	n := names{s.Team}
	replicas := max(s.Replicas, 1)
	var wg sync.WaitGroup
	errs := make([]error, 1+len(n.buckets()))
	wg.Go(func() {
		stream := n.mailStreamConfig()
		stream.Replicas = replicas
		if _, err := js.CreateOrUpdateStream(ctx, stream); err != nil {
			errs[0] = fmt.Errorf("make the mail stream: %w", err)
		}
	})
	for i, kv := range n.bucketConfigs(s.beat) {
		kv.Replicas = replicas
		wg.Go(func() {
			_, err := js.CreateOrUpdateKeyValue(ctx, kv)
			if err != nil && kv.Bucket == n.heartbeat() && storedOtherwise(ctx, js, kv) {
				// Made on disk by an earlier version, which a bucket
				// cannot change: the beats are made again within one.
				if err = js.DeleteKeyValue(ctx, kv.Bucket); err == nil {
					_, err = js.CreateKeyValue(ctx, kv)
				}
			}
			if err != nil {
				errs[1+i] = fmt.Errorf("make bucket %s: %w", kv.Bucket, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// storedOtherwise reports whether the bucket kv names exists with another
// storage than kv's.
func storedOtherwise(ctx context.Context, js jetstream.JetStream, kv jetstream.KeyValueConfig) bool {
	bucket, err := js.KeyValue(ctx, kv.Bucket)
	if err != nil {
		return false
	}
	status, err := bucket.Status(ctx)
	if err != nil {
		return false
	}
	info, ok := status.(*jetstream.KeyValueBucketStatus)
	return ok && info.StreamInfo().Config.Storage != kv.Storage
}
