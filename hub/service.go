package hub

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"switchboard/hub/grant"
)

// TeamService is the hub's side of one team, for a server that hosts join
// (an embedded hub serves it): what each host may do there, the stream and
// buckets made before any host joins, and the making of each host's mail
// consumer, which no host may make itself.
type TeamService struct {
	// Team is the team's name; "main" when empty.
	Team string
	// Replicas is how many nodes of a cluster of hubs keep the team's
	// stream and buckets; 1 when 0.
	Replicas int
	// beat is the hosts' heartbeat, and ackWait how long the hub waits for
	// a host's ack of a copy before it delivers it again; tests shorten
	// them.
	beat, ackWait time.Duration
}

func (s TeamService) withDefaults() (TeamService, error) {
	if s.Team == "" {
		s.Team = "main"
	}
	if s.beat <= 0 {
		s.beat = Heartbeat
	}
	if s.ackWait <= 0 {
		s.ackWait = ackWait
	}
	return s, checkName("team", s.Team)
}

// on is the service with its defaults, and JetStream on nc.
func (s TeamService) on(nc *nats.Conn) (TeamService, jetstream.JetStream, error) {
	s, err := s.withDefaults()
	if err != nil {
		return s, nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return s, nil, fmt.Errorf("jetstream: %w", err)
	}
	return s, js, nil
}

// Grant is what host may do on the hub, each host in an account of its
// own (package grant); doc.go says what each line lets it do, and what it
// does not.
func (s TeamService) Grant(host string) grant.Grant {
	s, _ = s.withDefaults()
	n := names{s.Team}
	mail := n.stream()
	var g grant.Grant
	same := func(subjects ...string) {
		for _, sub := range subjects {
			g.Imports = append(g.Imports, grant.Import{Local: sub, Team: sub})
		}
	}
	api := func(subjects ...string) {
		for _, sub := range subjects {
			g.Imports = append(g.Imports, grant.Import{Local: n.apiLocal(sub), Team: sub})
		}
	}
	// Every write, the hub's to make on the host's behalf (writes.go):
	// mail to any host, under the host's own name; presence and claims
	// under its own keys; any key of the rules, locks and shared values.
	same(n.writeRequest(host))
	// Its beat, and the question who else is up (reach.go).
	same(n.beat(host), n.reachRequest(host))
	// The host's own mail consumer, which the hub makes when asked: look
	// at it, pull from it, acknowledge what it delivered.
	same(n.consumerRequest(host))
	api(jsAPI + "CONSUMER.INFO." + mail + "." + host)
	next := jsAPI + "CONSUMER.MSG.NEXT." + mail + "." + host
	g.Imports = append(g.Imports, grant.Import{Local: n.apiLocal(next), Team: next, Streamed: true})
	same("$JS.ACK."+mail+"."+host+".>", "$JS.ACK.*.*."+mail+"."+host+".>")
	// The configuration and state of the team's streams, and any key of
	// its buckets; those the view follows from their streams' leaders
	// (leaderget.go).
	api(jsAPI + "STREAM.INFO." + mail)
	for _, b := range n.buckets() {
		api(jsAPI+"STREAM.INFO."+kvStream(b), jsAPI+"DIRECT.GET."+kvStream(b), jsAPI+"DIRECT.GET."+kvStream(b)+".>")
	}
	for _, b := range n.fedBuckets() {
		api(jsAPI + "STREAM.MSG.GET." + kvStream(b))
	}
	// What changed in the claims, states and shared values, as the hub
	// stored it.
	g.Feeds = []string{n.feedAll()}
	g.Replies = inboxPrefix(host) + ".>"
	return g
}

// Exports is what the team's account offers the hosts' accounts.
func (s TeamService) Exports() grant.Exports { return grant.ExportsOf(s.Grant("*")) }

// Prepare makes the team's mail stream and buckets, or makes those of an
// earlier start what they must be now.
func (s TeamService) Prepare(ctx context.Context, nc *nats.Conn) error {
	s, js, err := s.on(nc)
	if err != nil {
		return err
	}
	// Made side by side: in a cluster, each waits for its own group of
	// nodes to elect a leader, seconds, which one after the other would
	// add up to most of a minute before a host may join.
	n := names{s.Team}
	replicas := max(s.Replicas, 1)
	streams := append([]jetstream.StreamConfig{n.mailStreamConfig()}, n.bucketStreams()...)
	var wg sync.WaitGroup
	errs := make([]error, len(streams))
	for i, cfg := range streams {
		cfg.Replicas = replicas
		wg.Go(func() {
			if _, err := js.CreateOrUpdateStream(ctx, cfg); err != nil {
				errs[i] = fmt.Errorf("make %s: %w", cfg.Name, err)
			}
		})
	}
	wg.Wait()
	// The beats of an earlier version, kept in a bucket of their own
	// (reach.go): nothing reads them now.
	if err := js.DeleteStream(ctx, kvStream(n.retiredHeartbeats())); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
		errs = append(errs, fmt.Errorf("remove %s: %w", kvStream(n.retiredHeartbeats()), err))
	}
	return errors.Join(errs...)
}

// PrepareHosts makes the mail consumer of each host, on a server where no
// hub answers a host that asks for its own (a stock nats-server).
func (s TeamService) PrepareHosts(ctx context.Context, nc *nats.Conn, hosts []string) error {
	s, js, err := s.on(nc)
	if err != nil {
		return err
	}
	n := names{s.Team}
	for _, h := range hosts {
		if err := checkName("host", h); err != nil {
			return err
		}
		if _, err := js.CreateOrUpdateConsumer(ctx, n.stream(), n.consumerConfig(h, s.ackWait)); err != nil {
			return fmt.Errorf("make the mail consumer of host %s: %w", h, err)
		}
	}
	return nil
}

// Serve answers the hosts while the hub runs: it writes what each asks
// (writes.go), and makes a host's mail consumer as consumerConfig says
// when the host asks. The asking host is the last token of the subject,
// which only that host may publish to. The subscriptions live as long as
// nc; the nodes of a cluster answer in turn.
func (s TeamService) Serve(nc *nats.Conn) error {
	s, js, err := s.on(nc)
	if err != nil {
		return err
	}
	n := names{s.Team}
	w := &writer{n: n, js: js, busy: make(chan struct{}, writesAtOnce), kvs: make(map[string]jetstream.KeyValue)}
	if _, err := nc.QueueSubscribe(n.writeRequest("*"), "switchboard-hub", w.serve); err != nil {
		return fmt.Errorf("answer the hosts' writes: %w", err)
	}
	if err := newReachBook(nc, n, s.beat).serve(); err != nil {
		return err
	}
	prefix := strings.TrimSuffix(n.consumerRequest("*"), "*")
	_, err = nc.QueueSubscribe(n.consumerRequest("*"), "switchboard-hub", func(m *nats.Msg) {
		host := strings.TrimPrefix(m.Subject, prefix)
		answer := "ok"
		if err := checkName("host", host); err != nil {
			answer = err.Error()
		} else {
			ctx, cancel := context.WithTimeout(context.Background(), consumerMakeWait)
			_, err := js.CreateOrUpdateConsumer(ctx, n.stream(), n.consumerConfig(host, s.ackWait))
			cancel()
			if err != nil {
				answer = "make the mail consumer of host " + host + ": " + err.Error()
			}
		}
		_ = m.Respond([]byte(answer))
	})
	if err != nil {
		return fmt.Errorf("answer the hosts' requests for their consumers: %w", err)
	}
	return nil
}

// consumerMakeWait bounds the making of one host's consumer: in a cluster
// whose stream has no leader yet, the host asks again.
const consumerMakeWait = 10 * time.Second
