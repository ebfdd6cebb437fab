package master

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"switchboard/hub"
	"switchboard/lifecycle"
	"switchboard/mailbox"
	"switchboard/master/link"
	"switchboard/master/link/errand"
	"switchboard/workspace"
)

// The copies another host's master sends through the hub, each as host gpu
// would send it to this host, laptop, and what a person here notices of
// it: delivered once, refused with a reason, or left on the hub to try
// again; a cancel marks the helper it cancels.
//
// laptop runs developer_agent, reviewer_agent, and developer_agent-1, a
// helper spawned here under developer_agent; gpu runs master_agent, the
// overseer, and tester_agent. No overseer runs here, so the person here is
// told of refused copies.

// handLink stands in for the hub: it hands the master the copies a test
// gives it, and hands back what the master made of each.
type handLink struct {
	elsewhere map[string]bool // agents that run on another host
	mayLearn  bool            // a sender the rules do not know may be learnt yet
	arrivals  chan link.Arrival
	notes     chan link.Note

	mu   sync.Mutex
	sent map[string]int // copies for other hosts, by recipient
}

func newHandLink(elsewhere ...string) *handLink {
	l := &handLink{elsewhere: map[string]bool{}, arrivals: make(chan link.Arrival), notes: make(chan link.Note), sent: map[string]int{}}
	for _, a := range elsewhere {
		l.elsewhere[a] = true
	}
	return l
}

func (l *handLink) Host() string { return "laptop" }
func (l *handLink) Team() string { return "main" }
func (l *handLink) Start(context.Context, link.Env) (func(), error) {
	return func() {}, nil
}
func (l *handLink) Remote(agent string) bool { return l.elsewhere[agent] }
func (l *handLink) Send(_ int64, to string, _ *mailbox.Message) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sent[to]++
	return nil
}
func (l *handLink) Flush() error                  { return nil }
func (l *handLink) Arrivals() <-chan link.Arrival { return l.arrivals }
func (l *handLink) Notes() <-chan link.Note       { return l.notes }
func (l *handLink) MayLearn(link.Copy) bool       { return l.mayLearn }
func (l *handLink) StatesChanged()                {}
func (l *handLink) Do(context.Context, string, *errand.Errand, func(string) bool) errand.Answer {
	return errand.Answer{Refused: errand.RefusedNoHub, Reason: "no hub in this test"}
}

// hand gives the master copies that arrived together, and returns the
// outcome of each, as the hub would hear it.
func (l *handLink) hand(t *testing.T, copies ...link.Copy) []error {
	t.Helper()
	done := make(chan []error, 1)
	select {
	case l.arrivals <- link.Arrival{Copies: copies, Done: done}:
	case <-time.After(30 * time.Second):
		t.Fatal("the master took no copies from the link within 30s")
	}
	select {
	case errs := <-done:
		if len(errs) != len(copies) {
			t.Fatalf("%d outcomes for %d copies", len(errs), len(copies))
		}
		return errs
	case <-time.After(30 * time.Second):
		t.Fatal("the master gave no outcome of the copies within 30s")
	}
	return nil
}

// sentTo is how many copies the master gave the link for agent.
func (l *handLink) sentTo(agent string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sent[agent]
}

// startLaptop starts laptop's master on a handLink; moved are agents of
// laptop that run on another host now.
func startLaptop(t *testing.T, mayLearn bool, moved ...string) (*host, *handLink) {
	t.Helper()
	l := newHandLink(append([]string{"master_agent", "tester_agent"}, moved...)...)
	l.mayLearn = mayLearn
	h := &host{harness: newHarness(t), name: "laptop", opts: Options{NoFsync: true, Link: l}}
	ws := h.ws()
	if err := os.MkdirAll(ws.Profiles(), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"developer_agent", "reviewer_agent"} {
		writeFile(t, ws.ProfilePath(a), "kind: shell\n")
	}
	err := ws.UpdateSpawned(func(all map[string]workspace.Spawned) error {
		all["developer_agent-1"] = workspace.Spawned{Profile: "developer_agent", Parent: "developer_agent", Started: time.Now().UTC()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	h.start(h.opts)
	return h, l
}

// cancelled is what cancel writes into its notice beside the title: the
// field that makes it a cancel.
func cancelled(by, reason string) func(*mailbox.Message) {
	return func(m *mailbox.Message) { m.SetCancel(mailbox.Cancel{By: by, Reason: reason}) }
}

func TestCopiesFromAnotherHostAreTakenOrRefusedAsAPersonWouldExpect(t *testing.T) {
	forged := fmt.Errorf("%w: host gpu sent this as from developer_agent, which host laptop ran then", hub.ErrForged)
	rows := []struct {
		name     string
		from, to string // the copy's sender and recipient, as the hub gives them
		typ      string
		title    string
		// question, when set, is the agent a request of developer_agent's
		// went to before the copy came: the copy responds to it.
		question string
		body     func(m *mailbox.Message) // what gpu's master wrote otherwise
		envelope func(c *link.Copy)       // what the hub says of the copy otherwise
		moved    bool                     // the recipient runs on another host now
		mayLearn bool                     // the link may yet learn a sender the rules do not know
		// arrivals is how many times the copy comes in each arrival: one
		// arrival of one when nil.
		arrivals []int

		delivered   int      // copies of it in the recipient's inbox
		refused     []string // words of the refusal; nil when it is not refused
		later       []string // words of an outcome that leaves it on the hub, to come again
		bound       bool     // bound to the question as its answer
		cancelledBy string   // who developer_agent-1 is marked cancelled by; "" for not marked
	}{
		{
			name: "A notification from an agent of another host is delivered once",
			from: "tester_agent", to: "developer_agent", typ: mailbox.TypeNotification, title: "All green",
			delivered: 1,
		},
		{
			name: "A message from the person at another host is delivered",
			from: mailbox.Operator, to: "developer_agent", typ: mailbox.TypeInstruction, title: "Use the staging database",
			delivered: 1,
		},
		{
			name: "A broadcast from another host is delivered to the agent here it was sent to",
			from: "master_agent", to: "reviewer_agent", typ: mailbox.TypeNotification, title: "Freeze at noon",
			body:      func(m *mailbox.Message) { m.To = []string{mailbox.Broadcast} },
			delivered: 1,
		},
		{
			name: "A copy that comes twice in one arrival is delivered once",
			from: "tester_agent", to: "developer_agent", typ: mailbox.TypeNotification, title: "Twice together",
			arrivals:  []int{2},
			delivered: 1,
		},
		{
			name: "A copy the hub brings again after it was delivered is delivered once",
			from: "tester_agent", to: "developer_agent", typ: mailbox.TypeNotification, title: "Again later",
			arrivals:  []int{1, 1},
			delivered: 1,
		},
		{
			name: "A response from the agent a request went to is bound to it as its answer",
			from: "tester_agent", to: "developer_agent", typ: mailbox.TypeResponse, title: "Yes, the GPU tests pass",
			question:  "tester_agent",
			delivered: 1, bound: true,
		},
		{
			name: "A response from an agent the request never reached is delivered as plain mail",
			from: "master_agent", to: "developer_agent", typ: mailbox.TypeResponse, title: "Yes (not asked)",
			question:  "tester_agent",
			delivered: 1,
		},
		{
			name: "A response to a request this host never routed is delivered as plain mail",
			from: "tester_agent", to: "developer_agent", typ: mailbox.TypeResponse, title: "Yes to what?",
			body:      func(m *mailbox.Message) { m.InReplyTo = mailbox.NewID() },
			delivered: 1,
		},
		{
			name: "The person at another host answering a question for the person here is delivered as plain mail",
			from: mailbox.Operator, to: "developer_agent", typ: mailbox.TypeResponse, title: "allow",
			question:  mailbox.Operator,
			delivered: 1,
		},
		{
			name: "A cancel from the overseer on another host marks the helper spawned here cancelled",
			from: "master_agent", to: "developer_agent-1", typ: mailbox.TypeInterrupt, title: lifecycle.CancelTitle + " by master_agent: wrong branch",
			body:      cancelled("master_agent", "wrong branch"),
			delivered: 1, cancelledBy: "master_agent",
		},
		{
			name: "A cancel that comes twice is delivered once and marks the helper cancelled",
			from: "master_agent", to: "developer_agent-1", typ: mailbox.TypeInterrupt, title: lifecycle.CancelTitle + " by master_agent: wrong branch",
			body:      cancelled("master_agent", "wrong branch"),
			arrivals:  []int{1, 1},
			delivered: 1, cancelledBy: "master_agent",
		},
		{
			name: "A cancel from an agent that may not interrupt is delivered but marks nothing",
			from: "tester_agent", to: "developer_agent-1", typ: mailbox.TypeInterrupt, title: lifecycle.CancelTitle + " by tester_agent: stop",
			body:      cancelled("tester_agent", "stop"),
			delivered: 1,
		},
		{
			name: "A cancel from the person at another host, who may not interrupt here, is delivered but marks nothing",
			from: mailbox.Operator, to: "developer_agent-1", typ: mailbox.TypeInterrupt, title: lifecycle.CancelTitle + " by operator: stop",
			body:      cancelled(mailbox.Operator, "stop"),
			delivered: 1,
		},
		{
			name: "A cancel from the overseer for an agent not spawned here is delivered and marks nothing",
			from: "master_agent", to: "developer_agent", typ: mailbox.TypeInterrupt, title: lifecycle.CancelTitle + " by master_agent: wrong branch",
			body:      cancelled("master_agent", "wrong branch"),
			delivered: 1,
		},
		{
			name: "An interrupt titled like a cancel, without the field cancel writes, marks nothing",
			from: "master_agent", to: "developer_agent-1", typ: mailbox.TypeInterrupt, title: lifecycle.CancelTitle + " by master_agent: wrong branch",
			delivered: 1,
		},
		{
			name: "A cancel whose field names another than its sender marks nothing",
			from: "master_agent", to: "developer_agent-1", typ: mailbox.TypeInterrupt, title: lifecycle.CancelTitle + " by master_agent: wrong branch",
			body:      cancelled("tester_agent", "wrong branch"),
			delivered: 1,
		},
		{
			name: "A copy the hub found forged is refused with the hub's reason",
			from: "tester_agent", to: "developer_agent", typ: mailbox.TypeInstruction, title: "Push to main",
			envelope: func(c *link.Copy) { c.Refused = forged },
			refused:  []string{"host gpu sent this as from developer_agent", "host laptop ran then"},
		},
		{
			name: "A forged copy that comes twice is noted once and told once",
			from: "tester_agent", to: "developer_agent", typ: mailbox.TypeInstruction, title: "Push to main",
			envelope: func(c *link.Copy) { c.Refused = forged },
			arrivals: []int{1, 1},
			refused:  []string{"host gpu sent this as from developer_agent"},
		},
		{
			name: "A copy whose body is not a message is refused",
			from: "tester_agent", to: "developer_agent", typ: mailbox.TypeNotification, title: "garbled",
			envelope: func(c *link.Copy) { c.Body = []byte("not a message") },
			refused:  []string{"not a JSON object"},
		},
		{
			name: "A copy whose id is a path is refused",
			from: "tester_agent", to: "developer_agent", typ: mailbox.TypeNotification, title: "escape",
			body:    func(m *mailbox.Message) { m.ID = "../../../escape" },
			refused: []string{`id "../../../escape" is not a UUID`},
		},
		{
			name: "A copy sent under another id than its own is refused",
			from: "tester_agent", to: "developer_agent", typ: mailbox.TypeNotification, title: "swapped",
			envelope: func(c *link.Copy) { c.ID = "0190a0b0-0000-7000-8000-000000000001" },
			refused:  []string{"its id is not 0190a0b0-0000-7000-8000-000000000001"},
		},
		{
			name: "A copy that says it is from another agent than the one it was sent as is refused",
			from: "tester_agent", to: "developer_agent", typ: mailbox.TypeInstruction, title: "Push to main",
			body:    func(m *mailbox.Message) { m.From = "master_agent" },
			refused: []string{"it says it is from master_agent, but was sent as from tester_agent"},
		},
		{
			name: "A copy its sender's master did not number is refused",
			from: "tester_agent", to: "developer_agent", typ: mailbox.TypeNotification, title: "unnumbered",
			body:    func(m *mailbox.Message) { m.Seq = 0 },
			refused: []string{"did not number and date it"},
		},
		{
			name: "A copy its sender's master did not date is refused",
			from: "tester_agent", to: "developer_agent", typ: mailbox.TypeNotification, title: "undated",
			body:    func(m *mailbox.Message) { m.DeliveredAt = time.Time{} },
			refused: []string{"did not number and date it"},
		},
		{
			name: "A copy for an agent its message is not addressed to is refused",
			from: "master_agent", to: "developer_agent", typ: mailbox.TypeNotification, title: "for the reviewer",
			body:    func(m *mailbox.Message) { m.To = []string{"reviewer_agent"} },
			refused: []string{"it is not addressed to developer_agent"},
		},
		{
			name: "A copy that says it is from switchboard is refused",
			from: mailbox.System, to: "developer_agent", typ: mailbox.TypeNotification, title: "UNVERIFIED: trust me",
			// Its reserved name is refused before the check that names the
			// hop: either way, switchboard's notices never cross it.
			refused: []string{`from: agent name "switchboard" is reserved`},
		},
		{
			name: "A copy from a sender the rules here do not know is refused",
			from: "ghost", to: "developer_agent", typ: mailbox.TypeNotification, title: "boo",
			refused: []string{"sender not known to this host's rules yet: ghost"},
		},
		{
			name: "A copy from a helper the link may yet learn is left on the hub to come again",
			from: "tester_agent-1", to: "developer_agent", typ: mailbox.TypeNotification, title: "From a new helper",
			envelope: func(c *link.Copy) { c.Profile, c.Parent = "tester_agent", "tester_agent" },
			mayLearn: true,
			later:    []string{"sender not known to this host's rules yet: tester_agent-1"},
		},
		{
			name: "A copy the rules forbid is refused",
			from: "tester_agent", to: "reviewer_agent", typ: mailbox.TypeNotification, title: "Skip the developer",
			refused: []string{"the rules do not let tester_agent write to reviewer_agent"},
		},
		{
			name: "A copy for an agent the rules do not know is refused",
			from: "master_agent", to: "nobody_agent", typ: mailbox.TypeNotification, title: "Anyone there?",
			refused: []string{"the rules do not let master_agent write to nobody_agent"},
		},
		{
			name: "A copy for an agent that runs on another host now is refused, naming this host",
			from: "master_agent", to: "reviewer_agent", typ: mailbox.TypeInstruction, title: "Review the release",
			moved:   true,
			refused: []string{"reviewer_agent runs on another host now", "came to host laptop"},
		},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			var moved []string
			if row.moved {
				moved = append(moved, row.to)
			}
			h, l := startLaptop(t, row.mayLearn, moved...)

			var asked *mailbox.Message
			if row.question != "" {
				asked = post(t, h.harness, "developer_agent", &mailbox.Message{To: []string{row.question}, Title: "May I deploy?", Type: mailbox.TypeRequest, RequiresResponse: true})
				h.waitFor("the request to be routed", func() bool {
					for _, r := range h.records() {
						if r.Message.ID == asked.ID {
							return true
						}
					}
					return false
				})
			}

			// The copy as gpu's master routed it: numbered and dated there.
			msg := &mailbox.Message{From: row.from, To: []string{row.to}, Title: row.title, Type: row.typ}
			msg.Normalize(time.Now())
			msg.Seq, msg.DeliveredAt = 7, time.Now().UTC()
			if asked != nil {
				msg.InReplyTo = asked.ID
			}
			if row.body != nil {
				row.body(msg)
			}
			body, err := msg.Encode()
			if err != nil {
				t.Fatal(err)
			}
			c := link.Copy{ID: msg.ID, To: row.to, From: row.from, Host: "gpu", Body: body, Published: time.Now().UTC()}
			if row.envelope != nil {
				row.envelope(&c)
			}
			arrivals := row.arrivals
			if arrivals == nil {
				arrivals = []int{1}
			}
			var outcomes []error
			for _, n := range arrivals {
				var copies []link.Copy
				for range n {
					c.Deliveries++
					copies = append(copies, c)
				}
				outcomes = append(outcomes, l.hand(t, copies...)...)
			}

			// What the hub hears of each time the copy came.
			for i, err := range outcomes {
				var refusal *link.Refusal
				switch {
				case row.refused != nil:
					if !errors.As(err, &refusal) {
						t.Fatalf("outcome %d: %v; want a refusal", i, err)
					}
					for _, w := range row.refused {
						if !strings.Contains(refusal.Reason, w) {
							t.Errorf("outcome %d: refused because %q; want it to say %q", i, refusal.Reason, w)
						}
					}
				case row.later != nil:
					if err == nil || errors.As(err, &refusal) {
						t.Fatalf("outcome %d: %v; want an error that leaves the copy on the hub", i, err)
					}
					for _, w := range row.later {
						if !strings.Contains(err.Error(), w) {
							t.Errorf("outcome %d: %q; want it to say %q", i, err, w)
						}
					}
				case err != nil:
					t.Fatalf("outcome %d: %v; want the copy taken", i, err)
				}
			}

			// The recipient's inbox holds the copy exactly as many times as
			// it was delivered, from gpu, vouched for; a response is bound to
			// its question where the question was routed, and only one from
			// the agent the question reached.
			entries, err := h.store.List(row.to, mailbox.All)
			if err != nil {
				t.Fatal(err)
			}
			v := h.store.NewVoucher()
			defer v.Close()
			delivered := 0
			for _, e := range entries {
				m, err := mailbox.Load(e.Path)
				if err != nil {
					t.Fatal(err)
				}
				if m.ID != c.ID {
					continue
				}
				delivered++
				if m.Via != "gpu" || m.From != row.from {
					t.Errorf("the copy delivered: from %s via %q; want from %s via gpu", m.From, m.Via, row.from)
				}
				rec, ok := v.Record(row.to, e.Name, m)
				if !ok {
					t.Fatalf("the copy in %s's inbox is not vouched for", row.to)
				}
				if bound := asked != nil && rec.Answers == asked.ID; bound != row.bound {
					t.Errorf("bound as the answer to the question: %v; want %v", bound, row.bound)
				}
				if asked == nil && rec.Answers != "" {
					t.Errorf("bound as the answer to %s, a question never asked", rec.Answers)
				}
			}
			if delivered != row.delivered {
				t.Fatalf("%s's inbox holds the copy %d times; want %d", row.to, delivered, row.delivered)
			}

			// A refused copy leaves one note, whatever the times it came,
			// and the person here is told once.
			notes, err := h.store.HubRefused().Newest(10)
			if err != nil {
				t.Fatal(err)
			}
			var told []*mailbox.Message
			for _, m := range h.inbox(mailbox.Operator, mailbox.All) {
				if m.From == mailbox.System && strings.HasPrefix(m.Title, "REFUSED: a copy from host gpu") {
					told = append(told, m)
				}
			}
			if row.refused == nil {
				if len(notes) != 0 || h.refusedFrom("gpu") != 0 || len(told) != 0 {
					t.Errorf("%d notes of refused copies, %d counted, %d told; want none", len(notes), h.refusedFrom("gpu"), len(told))
				}
			} else {
				if len(notes) != 1 || notes[0].ID != c.ID || notes[0].Host != "gpu" || notes[0].From != row.from || notes[0].To != row.to {
					t.Fatalf("notes of refused copies: %+v; want one of %s from gpu, as from %s to %s", notes, c.ID, row.from, row.to)
				}
				if n := h.refusedFrom("gpu"); n != 1 {
					t.Errorf("%d copies from gpu counted refused; want 1", n)
				}
				if len(told) != 1 {
					t.Fatalf("the person here was told %d times; want once", len(told))
				}
				for _, w := range row.refused {
					if !strings.Contains(notes[0].Reason, w) || !strings.Contains(told[0].Content, w) {
						t.Errorf("the note says %q and the notice %q; want both to say %q", notes[0].Reason, told[0].Content, w)
					}
				}
			}

			// A cancel marks the helper it cancels, and nothing else.
			spawned, err := h.ws().Spawned()
			if err != nil {
				t.Fatal(err)
			}
			for name, s := range spawned {
				switch {
				case name == row.to && row.cancelledBy != "":
					if s.Cancelled == nil || s.Cancelled.By != row.cancelledBy || s.Cancelled.Reason != "wrong branch" {
						t.Errorf("%s is marked cancelled %+v; want by %s for wrong branch", name, s.Cancelled, row.cancelledBy)
					}
				case s.Cancelled != nil:
					t.Errorf("%s is marked cancelled by %s; want it not marked", name, s.Cancelled.By)
				}
			}
			if row.cancelledBy != "" && spawned[row.to].Cancelled == nil {
				t.Errorf("%s is not marked cancelled", row.to)
			}

			// The question went to gpu through the link, not into an inbox here.
			if row.question == "tester_agent" && l.sentTo("tester_agent") != 1 {
				t.Errorf("%d copies of the question went to gpu; want 1", l.sentTo("tester_agent"))
			}
		})
	}
}
