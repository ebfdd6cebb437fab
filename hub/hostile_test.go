package hub_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"switchboard/hub"
)

// TestAHostileHostChangesNothingOfAnotherHost: host a runs hostile code
// with its own credentials. It subscribes to whatever it may; it sends
// every verb of JetStream's API, under both the API's own prefix and the
// one its grant carries, for every stream, bucket and consumer of the
// team, each with bodies that would create, change, purge, delete, pull
// or snapshot, and each with a reply subject that would make the server
// write its answer into another host's mail, claims, feed or acks; and it
// publishes with every header JetStream acts on, on its own keys and
// subjects and on the others'. Nothing of hosts b and c changes (their
// presence, claims, consumers, the mail waiting for them, the
// streams' settings), no copy appears as published by them, a copy of b's
// whose id a knew still arrives, no mail of theirs reaches a, and c's view
// of the team is as it was; on every kind of hub.
func TestAHostileHostChangesNothingOfAnotherHost(t *testing.T) {
	for i, start := range hubKinds(t, "a", "b", "c") {
		t.Run(kindNames[i], func(t *testing.T) {
			began := time.Now()
			k := start(t)
			team := joinTeam(t, k)
			t.Logf("%s: the team joined in %s", k.name, time.Since(began).Round(time.Millisecond))
			before := snapshotOf(t, k.admin)
			h := newHostile(t, k)
			began = time.Now()
			h.attack()
			h.settle()
			t.Logf("%s: the attack took %s", k.name, time.Since(began).Round(time.Millisecond))
			after := snapshotOf(t, k.admin)
			before.sameAs(t, after)
			if h.deniedByTheHub() == 0 {
				t.Errorf("the hub refused none of a's writes as not a's: the attack did not reach it")
			}
			if h.sawSecret() {
				t.Errorf("host a read mail addressed to host c")
			}
			team.sendAfterwards(t)
			team.carolGetsExactlyBsCopies(t)
		})
	}
}

// secret marks every body of b's mail to c: a must never see it.
const secret = "SECRET-FOR-CAROL"

// hostileTeam is the honest side: b runs bob and bea, c runs carol, and a
// (the hostile host's honest master) runs alice.
type hostileTeam struct {
	a, b, c *hub.Conn
}

func joinAs(t *testing.T, k *kindOfHub, host string, agents ...string) *hub.Conn {
	t.Helper()
	url, creds := k.join(host)
	var c *hub.Conn
	var err error
	// A cluster makes the team's streams once its nodes elect leaders.
	hub.WaitFor(t, 60*time.Second, "host "+host+" joined", func() bool {
		c, err = hub.Join(hub.CtxFor(t, 10*time.Second), url, hub.JoinConfig{Host: host, Agents: agents, RulesText: []byte("rules\n"), Credentials: creds})
		return err == nil
	})
	t.Cleanup(func() { c.Close() })
	return c
}

func joinTeam(t *testing.T, k *kindOfHub) *hostileTeam {
	team := &hostileTeam{a: joinAs(t, k, "a", "alice"), b: joinAs(t, k, "b", "bob", "bea"), c: joinAs(t, k, "c", "carol")}
	ctx := hub.CtxFor(t, 20*time.Second)
	// Mail for carol waits on the hub (c takes none yet); a is sent a
	// message whose id b sends carol later: a knows it ahead.
	for _, cp := range []hub.Copy{
		{ID: "before-1", From: "bob", To: "carol", Body: []byte(secret + " before-1")},
		{ID: "shared-1", From: "bob", To: "alice", Body: []byte("for alice")},
	} {
		if err := team.b.Publish(ctx, cp); err != nil {
			t.Fatal(err)
		}
	}
	return team
}

// sendAfterwards has b send carol the message whose id a knew, and one
// more.
func (team *hostileTeam) sendAfterwards(t *testing.T) {
	ctx := hub.CtxFor(t, 20*time.Second)
	for _, id := range []string{"shared-1", "after-1"} {
		if err := team.b.Publish(ctx, hub.Copy{ID: id, From: "bob", To: "carol", Body: []byte(secret + " " + id)}); err != nil {
			t.Fatal(err)
		}
	}
}

// carolGetsExactlyBsCopies takes c's mail: b's three copies, each once and
// taken, and no other copy as published by b; and c's view of the team is
// the team.
func (team *hostileTeam) carolGetsExactlyBsCopies(t *testing.T) {
	ctx := hub.CtxFor(t, 60*time.Second)
	var mu sync.Mutex
	fromB := make(map[string]int)
	var wrong []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = team.c.Receive(ctx, func(_ context.Context, d hub.Delivered) error {
			mu.Lock()
			defer mu.Unlock()
			if d.Host != "b" {
				return nil // a's own, refused or not: a may send under its name
			}
			if d.Refused != nil || d.From != "bob" || !strings.HasPrefix(string(d.Body), secret+" "+d.ID) {
				wrong = append(wrong, fmt.Sprintf("%+v", d))
			}
			fromB[d.ID]++
			return nil
		})
	}()
	hub.WaitFor(t, 60*time.Second, "b's three copies at c", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(fromB) >= 3
	})
	mu.Lock()
	if !maps.Equal(fromB, map[string]int{"before-1": 1, "shared-1": 1, "after-1": 1}) || len(wrong) > 0 {
		t.Errorf("c took from b %v (want before-1, shared-1 and after-1, once each); not b's own: %v", fromB, wrong)
	}
	mu.Unlock()
	team.teamIsWhole(t, team.c)
}

// teamIsWhole waits until c sees b's and c's agents where they run (a may
// have let its own go).
func (team *hostileTeam) teamIsWhole(t *testing.T, c *hub.Conn) {
	t.Helper()
	want := "bea@b bob@b carol@c"
	var got string
	hub.WaitFor(t, 20*time.Second, "c's view of the team: "+want, func() bool {
		members, err := c.Team(hub.CtxFor(t, 5*time.Second))
		var parts []string
		for _, m := range members {
			if m.Host != "a" {
				parts = append(parts, m.Agent+"@"+m.Host)
			}
		}
		got = strings.Join(parts, " ")
		return err == nil && got == want
	})
}

// snapshot is what of hosts b and c the hub holds.
type snapshot struct {
	streams   map[string]string            // each stream's settings, as JSON
	consumers map[string]map[string]string // each stream's consumers, with their settings and state
	keys      map[string]string            // b's and c's keys of presence and claims: revision and value
	beats     []string                     // the hosts the hub hears beat
	mail      map[string]uint64            // copies waiting, by subject, of those b and c published
}

var streamNames = []string{"SB_main", "KV_SB_main_presence", "KV_SB_main_claims", "KV_SB_main_rules", "KV_SB_main_locks", "KV_SB_main_shared"}

func snapshotOf(t *testing.T, admin *nats.Conn) *snapshot {
	t.Helper()
	js, err := jetstream.New(admin)
	if err != nil {
		t.Fatal(err)
	}
	ctx := hub.CtxFor(t, 20*time.Second)
	s := &snapshot{streams: map[string]string{}, consumers: map[string]map[string]string{}, keys: map[string]string{}, mail: map[string]uint64{}}
	for _, name := range streamNames {
		st, err := js.Stream(ctx, name)
		if err != nil {
			t.Fatalf("stream %s: %v", name, err)
		}
		info, err := st.Info(ctx, jetstream.WithSubjectFilter(">"))
		if err != nil {
			t.Fatal(err)
		}
		cfg, _ := json.Marshal(info.Config)
		s.streams[name] = string(cfg)
		s.consumers[name] = map[string]string{}
		for c := range st.ListConsumers(ctx).Info() {
			// What it delivered and what waits acknowledged: a's own
			// copies to c may add to what it has yet to deliver.
			state, _ := json.Marshal(struct {
				Config    jetstream.ConsumerConfig
				Delivered jetstream.SequenceInfo
				Acks      int
				Redeliv   int
			}{c.Config, c.Delivered, c.NumAckPending, c.NumRedelivered})
			s.consumers[name][c.Name] = string(state)
		}
		for subject, n := range info.State.Subjects {
			switch {
			case name == "SB_main" && (strings.Split(subject, ".")[4] == "b" || strings.Split(subject, ".")[4] == "c"):
				s.mail[subject] = n
			case name == "KV_SB_main_presence" || name == "KV_SB_main_claims":
				if !strings.HasSuffix(subject, ".b") && !strings.HasSuffix(subject, ".c") && !strings.Contains(subject, "presence.b.") && !strings.Contains(subject, "presence.c.") {
					continue
				}
				m, err := st.GetLastMsgForSubject(ctx, subject)
				if err != nil {
					t.Fatal(err)
				}
				s.keys[subject] = fmt.Sprintf("%d %s", m.Sequence, m.Data)
			}
		}
	}
	// Who is up, as the hub says: what a told it of other hosts is not
	// in it.
	answer, err := admin.RequestWithContext(ctx, "sb.main.hub.reach.admin", nil)
	if err != nil {
		t.Fatalf("ask the hub who is up: %v", err)
	}
	var up struct{ Hosts []string }
	if err := json.Unmarshal(answer.Data, &up); err != nil {
		t.Fatal(err)
	}
	s.beats = slices.Sorted(slices.Values(up.Hosts))
	return s
}

func (s *snapshot) sameAs(t *testing.T, after *snapshot) {
	t.Helper()
	for name, cfg := range s.streams {
		if after.streams[name] != cfg {
			t.Errorf("the settings of stream %s changed:\n%s\nnow\n%s", name, cfg, after.streams[name])
		}
	}
	for name, cs := range s.consumers {
		if !slices.Equal(slices.Sorted(maps.Keys(cs)), slices.Sorted(maps.Keys(after.consumers[name]))) {
			t.Errorf("the consumers of %s changed: %v, now %v", name, slices.Sorted(maps.Keys(cs)), slices.Sorted(maps.Keys(after.consumers[name])))
		}
		for _, c := range []string{"b", "c"} {
			if after.consumers[name][c] != cs[c] {
				t.Errorf("consumer %s of %s: %s\n  now %s", c, name, cs[c], after.consumers[name][c])
			}
		}
	}
	if !maps.Equal(s.keys, after.keys) {
		t.Errorf("b's and c's presence and claims changed:\n%v\nnow\n%v", s.keys, after.keys)
	}
	if !slices.Equal(s.beats, after.beats) {
		t.Errorf("the hosts the hub hears beat were %v, now %v", s.beats, after.beats)
	}
	if !maps.Equal(s.mail, after.mail) {
		t.Errorf("the copies b and c published changed on the hub: %v, now %v", s.mail, after.mail)
	}
}

// hostile is host a's hostile code: a connection with a's credentials and
// none of Conn's care, which keeps everything the server sends it.
type hostile struct {
	t        *testing.T
	denied   int // the hub's answers that refused a write as not the host's
	nc       *nats.Conn
	mu       sync.Mutex
	received [][]byte
	answers  atomic.Int64
}

func newHostile(t *testing.T, k *kindOfHub) *hostile {
	url, creds := k.join("a")
	h := &hostile{t: t}
	opts := []nats.Option{nats.CustomInboxPrefix("_INBOX_a"), nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {})}
	if len(creds) > 0 {
		kp, err := nkeys.ParseDecoratedUserNKey(creds)
		if err != nil {
			t.Fatal(err)
		}
		pub, _ := kp.PublicKey()
		opts = append(opts, nats.Nkey(pub, kp.Sign))
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	h.nc = nc
	keep := func(m *nats.Msg) {
		h.answers.Add(1)
		h.mu.Lock()
		defer h.mu.Unlock()
		if m.Header.Get("Sb-Error") == "denied" {
			h.denied++
		}
		h.received = append(h.received, append(append([]byte(m.Subject+" "), m.Data...), fmt.Sprint(m.Header)...))
	}
	for _, sub := range []string{">", "sb.>", "sb.main.mail.>", "_INBOX_b.>", "_INBOX_c.>", "$JS.>", "$KV.>", "sb.main.feed.>", "_INBOX_a.>"} {
		_, _ = nc.Subscribe(sub, keep) // refused ones are refused
	}
	return h
}

func (h *hostile) sawSecret() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.received {
		if bytes.Contains(r, []byte(secret)) {
			return true
		}
	}
	return false
}

// replies are where a would have the server write its answers: its own
// inbox, and another host's mail, claims, keys seen through a's prefix,
// the team's feed, and c's acknowledgements.
var replies = []string{"_INBOX_a.answer", "sb.main.mail.c.b.carol", "$KV.SB_main_claims.held.mallory.b",
	"sb.main.js.$KV.SB_main_claims.held.mallory.b", "sb.main.feed.SB_main_claims.held.mallory.b", "$JS.ACK.SB_main.c.1.1.1.1.0"}

// apiVerbs are JetStream's API (nats-server 2.15), {s} a stream and {c}
// a consumer, with a body that does the harm the verb can.
var apiVerbs = map[string]string{
	"INFO": `{}`, "STREAM.LIST": `{}`, "STREAM.NAMES": `{}`, "META.LEADER.STEPDOWN": `{}`, "META.RESCUE": `{}`,
	"SERVER.REMOVE": `{"peer":"n1"}`, "SERVER.EVACUATE": `{}`, "ACCOUNT.PURGE.switchboard": `{}`, "ACCOUNT.PURGE.$G": `{}`,
	"STREAM.CREATE.{s}":                      `{"name":"{s}","subjects":["sb.main.mail.>"],"storage":"memory"}`,
	"STREAM.UPDATE.{s}":                      `{"name":"{s}","subjects":[">"],"allow_rollup_hdrs":true,"deny_purge":false,"max_msgs":1}`,
	"STREAM.DELETE.{s}":                      `{}`,
	"STREAM.PURGE.{s}":                       `{}`,
	"STREAM.MSG.DELETE.{s}":                  `{"seq":1,"no_erase":true}`,
	"STREAM.MSG.GET.{s}":                     `{"seq":1}`,
	"STREAM.INFO.{s}":                        `{"subjects_filter":">"}`,
	"STREAM.SNAPSHOT.{s}":                    `{"deliver_subject":"sb.main.mail.c.b.carol","chunk_size":1024}`,
	"STREAM.RESTORE.{s}":                     `{"config":{"name":"{s}"}}`,
	"STREAM.LEADER.STEPDOWN.{s}":             `{}`,
	"STREAM.PEER.REMOVE.{s}":                 `{"peer":"n1"}`,
	"STREAM.PEER.EVACUATE.{s}":               `{}`,
	"STREAM.CANCEL_MOVE.{s}":                 `{}`,
	"ACCOUNT.STREAM.MOVE.$G.{s}":             `{}`,
	"CONSUMER.CREATE.{s}":                    `{"stream_name":"{s}","config":{"deliver_subject":"sb.main.mail.c.b.carol","ack_policy":"none"}}`,
	"CONSUMER.LIST.{s}":                      `{}`,
	"CONSUMER.NAMES.{s}":                     `{}`,
	"DIRECT.GET.{s}":                         `{"seq":1}`,
	"DIRECT.GET.{s}.sb.main.mail.>":          `{}`,
	"CONSUMER.CREATE.{s}.{c}":                `{"stream_name":"{s}","config":{"name":"{c}","durable_name":"{c}","deliver_subject":"sb.main.mail.c.b.carol","filter_subject":"sb.main.mail.>","ack_policy":"none"}}`,
	"CONSUMER.CREATE.{s}.{c}.sb.main.mail.>": `{"stream_name":"{s}","config":{"name":"{c}","durable_name":"{c}","filter_subject":"sb.main.mail.>","ack_policy":"none"}}`,
	"CONSUMER.DURABLE.CREATE.{s}.{c}":        `{"stream_name":"{s}","config":{"durable_name":"{c}","deliver_subject":"sb.main.mail.c.b.carol","ack_policy":"none"}}`,
	"CONSUMER.DELETE.{s}.{c}":                `{}`,
	"CONSUMER.INFO.{s}.{c}":                  `{}`,
	"CONSUMER.MSG.NEXT.{s}.{c}":              `{"batch":100,"expires":500000000}`,
	"CONSUMER.LEADER.STEPDOWN.{s}.{c}":       `{}`,
	"CONSUMER.PAUSE.{s}.{c}":                 `{"pause_until":"2099-01-01T00:00:00Z"}`,
	"CONSUMER.RESET.{s}.{c}":                 `{"seq":1}`,
	"CONSUMER.UNPIN.{s}.{c}":                 `{"group":"g"}`,
	"CONSUMER.PEER.REMOVE.{s}.{c}":           `{"peer":"n1"}`,
	"CONSUMER.PEER.EVACUATE.{s}.{c}":         `{}`,
}

// attack sends every verb, to every stream and consumer, under both
// prefixes, with every reply; then every header on every subject.
func (h *hostile) attack() {
	for _, prefix := range []string{"$JS.API.", hub.APIPrefix + "."} {
		for verb, body := range apiVerbs {
			for _, stream := range streamNames {
				for _, consumer := range []string{"a", "b", "c", "spy"} {
					if !strings.Contains(verb, "{c}") && consumer != "a" {
						continue // one per stream
					}
					fill := strings.NewReplacer("{s}", stream, "{c}", consumer)
					subject, data := prefix+fill.Replace(verb), fill.Replace(body)
					for _, reply := range replies {
						_ = h.nc.PublishMsg(&nats.Msg{Subject: subject, Reply: reply, Data: []byte(data)})
					}
				}
			}
		}
	}
	h.publishHeaders()
	h.askTheHub()
	h.ackOthers()
	if err := h.nc.Flush(); err != nil && !errors.Is(err, nats.ErrConnectionClosed) {
		h.t.Fatal(err)
	}
}

// headerSets are the headers JetStream acts on when a message is stored:
// roll-ups, expectations, ids (one that b's copy to carol had under the
// hub's former ids), time to live, counters, schedules, batches, the
// key/value operations, markers, tracing and API levels. One of them, an
// expected last message id that does not match, stops every replicated
// stream of nats-server 2.15 for good, whoever sends it: no host's publish
// reaches a stream, the hub writes on its behalf.
var headerSets = []map[string]string{
	{"Nats-Rollup": "all"}, {"Nats-Rollup": "sub"},
	{"Nats-Expected-Stream": "KV_SB_main_claims"}, {"Nats-Expected-Last-Sequence": "0"},
	{"Nats-Expected-Last-Subject-Sequence": "0"}, {"Nats-Expected-Last-Subject-Sequence": "0", "Nats-Expected-Last-Subject-Sequence-Subject": "$KV.SB_main_claims.held.bob.b"},
	{"Nats-Expected-Last-Msg-Id": "x"},
	{"Nats-Msg-Id": "shared-1/carol"}, {"Nats-Msg-Id": "before-1/carol"},
	{"Nats-TTL": "1s"}, {"Nats-TTL": "never"}, {"Nats-Incr": "1"},
	{"Nats-Schedule": "@every 1s", "Nats-Schedule-Target": "sb.main.mail.c.b.carol"},
	{"Nats-Batch-Id": "b1", "Nats-Batch-Sequence": "1", "Nats-Batch-Commit": "1"},
	{"KV-Operation": "PURGE", "Nats-Rollup": "sub"}, {"KV-Operation": "DEL"}, {"Nats-Marker-Reason": "Purge"},
	{"Nats-Trace-Dest": "sb.main.mail.c.b.carol"}, {"Nats-Trace-Dest": "$KV.SB_main_claims.held.mallory.b", "Nats-Trace-Only": "true"},
	{"Nats-Required-Api-Level": "0"}, {"Nats-Request-Info": `{"acc":"host-b","user":"b"}`},
}

// headerSubjects are a's own subjects, the team's keys, and the others',
// under its prefix and under none.
var headerSubjects = []string{
	"sb.main.mail.c.a.carol", "sb.main.mail.c.b.carol",
	"sb.main.js.$KV.SB_main_claims.held.alice.a", "sb.main.js.$KV.SB_main_presence.a.alice",
	"sb.main.js.$KV.SB_main_locks.x", "sb.main.js.$KV.SB_main_shared.x", "sb.main.js.$KV.SB_main_rules.team",
	"sb.main.js.$KV.SB_main_claims.held.bob.b", "sb.main.js.$KV.SB_main_presence.b.bob",
	"sb.main.hub.beat.d", "sb.main.hub.beat.b", "sb.main.hub.beat.*", "sb.main.feed.reach.d", "sb.main.hub.reach.b",
	"$KV.SB_main_claims.held.alice.a", "$KV.SB_main_claims.held.bob.b", "$KV.SB_main_presence.b.bob",
}

func (h *hostile) publishHeaders() {
	for _, subject := range headerSubjects {
		for _, set := range headerSets {
			m := &nats.Msg{Subject: subject, Reply: "_INBOX_a.answer", Header: nats.Header{}, Data: []byte(`{"state":"hostile"}`)}
			for k, v := range set {
				m.Header.Set(k, v)
			}
			_ = h.nc.PublishMsg(m)
		}
	}
}

// askTheHub asks the hub, which writes for every host, to write what is
// not a's: every write of every bucket (and of streams that are no
// bucket) on b's keys, on keys a wildcard or a gap would stretch to
// others', on a key past the bound; copies whose host or recipient would
// add tokens to the subject (b's name among them); each once plain and
// once with every header JetStream acts on; and the same asked in b's
// name, and b's consumer asked for.
func (h *hostile) askTheHub() {
	buckets := []string{"SB_main_presence", "SB_main_hosts", "SB_main_claims", "SB_main_rules", "SB_main_locks", "SB_main_shared", "SB_main", "KV_SB_main_claims", "x"}
	keys := []string{"b.bob", "b", "held.bob.b", "left.bob.b", "held.mallory.b", "c.carol", "*", ">", "b.>", "held.*.b", "a..b", ".b", "", strings.Repeat("k", 5000)}
	var requests []*nats.Msg
	for _, op := range []string{"put", "create", "update", "delete"} {
		for _, bucket := range buckets {
			for _, key := range keys {
				requests = append(requests, &nats.Msg{Header: nats.Header{"Sb-Op": {op}, "Sb-Bucket": {bucket}, "Sb-Key": {key}, "Sb-Revision": {"1"}}, Data: []byte(`{"state":"hostile"}`)})
			}
		}
	}
	for _, toHost := range []string{"c.b", "c", "*", ">"} {
		for _, to := range []string{"carol", "carol.b", "*"} {
			requests = append(requests, &nats.Msg{Header: nats.Header{"Sb-Op": {"mail"}, "Sb-To-Host": {toHost}, "Sb-To": {to}, "Sb-Id": {"hostile-" + toHost + to}, "Sb-From": {"bob"}}, Data: []byte("hostile")})
		}
	}
	for _, m := range requests {
		for _, withHeaders := range []bool{false, true} {
			for _, as := range []string{"a", "b"} {
				req := &nats.Msg{Subject: "sb.main.hub.write." + as, Reply: "_INBOX_a.hub", Header: nats.Header{}, Data: m.Data}
				for k, v := range m.Header {
					req.Header[k] = v
				}
				if withHeaders {
					for _, set := range headerSets {
						for k, v := range set {
							req.Header.Set(k, v)
						}
					}
				}
				_ = h.nc.PublishMsg(req)
			}
		}
	}
	for _, host := range []string{"a", "b", "c"} {
		_ = h.nc.PublishMsg(&nats.Msg{Subject: "sb.main.hub.consumer." + host, Reply: "_INBOX_a.hub"})
	}
}

// deniedByTheHub counts the hub's answers that refused a write as not a's.
func (h *hostile) deniedByTheHub() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.denied
}

// ackOthers acknowledges, naks and terminates what c's and b's consumers
// delivered.
func (h *hostile) ackOthers() {
	for _, consumer := range []string{"b", "c"} {
		for _, ack := range []string{"+ACK", "-NAK", "+TERM", "+WPI", "+NXT"} {
			for _, subject := range []string{"$JS.ACK.SB_main." + consumer + ".1.1.1.1.0", "$JS.ACK.x.y.SB_main." + consumer + ".1.1.1.1.0.t"} {
				_ = h.nc.Publish(subject, []byte(ack))
			}
		}
	}
}

// settle waits until the server answered what it will: a request a's
// grant allows, sent last, is answered, and no answer came for half a
// second.
func (h *hostile) settle() {
	if _, err := h.nc.Request(hub.APIPrefix+".STREAM.INFO.SB_main", nil, 10*time.Second); err != nil {
		h.t.Fatalf("a request a may make, after the attack: %v", err)
	}
	last, quiet := h.answers.Load(), time.Now()
	hub.WaitFor(h.t, 20*time.Second, "the server's answers to the attack", func() bool {
		if n := h.answers.Load(); n != last {
			last, quiet = n, time.Now()
		}
		return time.Since(quiet) > 500*time.Millisecond
	})
}
