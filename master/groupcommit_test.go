package master

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"switchboard/mailbox"
)

// burstPlan is who writes to whom in the bursts of these tests: three
// outboxes, two inboxes.
var burstPlan = []struct{ from, to string }{
	{"developer_agent", "master_agent"},
	{"reviewer_agent", "master_agent"},
	{"tester_agent", "developer_agent"},
}

// queueBurst posts two messages along each line of burstPlan before any
// master runs, so that the first pass of the master finds them all.
func queueBurst(t *testing.T, h *harness) []*mailbox.Message {
	t.Helper()
	var sent []*mailbox.Message
	for _, p := range burstPlan {
		for i := range 2 {
			sent = append(sent, post(t, h, p.from, &mailbox.Message{To: []string{p.to}, Title: fmt.Sprintf("%s #%d", p.from, i)}))
		}
	}
	return sent
}

// waitBurstRouted waits until every outbox of burstPlan is empty and each
// message sent is in its recipient's inbox.
func (h *harness) waitBurstRouted(sent []*mailbox.Message) {
	h.t.Helper()
	h.waitFor("the burst to leave the outboxes", func() bool {
		for _, p := range burstPlan {
			if left, _ := h.store.Pending(p.from); len(left) > 0 {
				return false
			}
		}
		return true
	})
	want := make(map[string]int)
	for _, m := range sent {
		want[m.To[0]]++
	}
	for to, n := range want {
		h.waitInbox(to, n)
	}
}

// TestABurstFromSeveralOutboxesIsMadeDurableTogether: messages waiting in
// three outboxes when the master starts are routed as one batch: the log
// is synced once for them all, each inbox folder once, and each copy once.
func TestABurstFromSeveralOutboxesIsMadeDurableTogether(t *testing.T) {
	h := newHarness(t)
	sent := queueBurst(t, h)
	var mu sync.Mutex
	synced := make(map[string]int) // by kind
	h.syncs = func(path string) error {
		mu.Lock()
		defer mu.Unlock()
		synced[h.syncKind(path)]++
		return nil
	}
	h.start(Options{})
	h.waitBurstRouted(sent)
	mu.Lock()
	defer mu.Unlock()
	want := map[string]int{"the log": 1, "the inbox of master_agent": 1, "the inbox of developer_agent": 1, "a copy": len(sent)}
	for kind, n := range want {
		if synced[kind] != n {
			t.Errorf("%s was synced %d times for a burst of %d messages from three outboxes; want %d", kind, synced[kind], len(sent), n)
		}
	}
	if len(synced) != len(want) {
		t.Errorf("syncs: %v; want only %v", synced, want)
	}
}

// syncKind names what the master syncs at path, for the tests' counts.
func (h *harness) syncKind(path string) string {
	switch {
	case path == h.store.LogPath():
		return "the log"
	case filepath.Dir(path) == h.store.StageDir():
		return "a copy"
	}
	for _, agent := range []string{"master_agent", "developer_agent", "reviewer_agent", "tester_agent"} {
		if path == h.store.InboxDir(agent) {
			return "the inbox of " + agent
		}
	}
	return path
}

// TestASyncFailedAtAnyStepOfABatchLosesAndRepeatsNothing fails one sync of
// a burst's batch, at each step in turn: the log's, a copy's, or that of
// the inbox folder of developer_agent, which the tester's messages alone go
// to. Every message is then logged once, each copy is in its inbox once,
// and no message left its outbox before its copy was made durable: each
// copy was in its folder at a sync of that folder that went through.
func TestASyncFailedAtAnyStepOfABatchLosesAndRepeatsNothing(t *testing.T) {
	for _, step := range []string{"the log", "a copy", "the inbox of developer_agent"} {
		t.Run(step, func(t *testing.T) {
			h := newHarness(t)
			sent := queueBurst(t, h)
			var mu sync.Mutex
			failed := false
			durable := make(map[string]bool) // copies in an inbox folder at a sync of it that went through
			h.syncs = func(path string) error {
				mu.Lock()
				defer mu.Unlock()
				kind := h.syncKind(path)
				if !failed && kind == step {
					failed = true
					return errors.New("an input/output error, for the test")
				}
				if strings.HasPrefix(kind, "the inbox of ") {
					entries, _ := os.ReadDir(path)
					for _, e := range entries {
						durable[filepath.Join(path, e.Name())] = true
					}
				}
				return nil
			}
			h.start(Options{})
			h.waitBurstRouted(sent)
			mu.Lock()
			defer mu.Unlock()
			if !failed {
				t.Fatalf("%s was never synced", step)
			}
			// The copies a folder's failed sync holds back share one line.
			if n := strings.Count(h.log.String(), "cannot deliver to developer_agent"); step == "the inbox of developer_agent" && n != 1 {
				t.Errorf("the failed sync of an inbox holding two copies is told of %d times; want once:\n%s", n, h.log.String())
			}
			var ids []string
			for _, rec := range h.records() {
				ids = append(ids, rec.Message.ID)
			}
			for i, m := range sent {
				if n := slices.Index(ids, m.ID); n < 0 || slices.Index(ids[n+1:], m.ID) >= 0 {
					t.Errorf("message %d (%s) is logged %d times; want once", i, m.Title, strings.Count(strings.Join(ids, " "), m.ID))
				}
				entries, err := h.store.List(m.To[0], mailbox.All)
				if err != nil {
					t.Fatal(err)
				}
				copies := 0
				for _, e := range entries {
					if e.ID != m.ID {
						continue
					}
					copies++
					if !durable[e.Path] {
						t.Errorf("the copy of %q left its outbox without a sync of %s that went through after it came in", m.Title, filepath.Dir(e.Path))
					}
				}
				if copies != 1 {
					t.Errorf("%q has %d copies in the inbox of %s; want 1", m.Title, copies, m.To[0])
				}
			}
		})
	}
}
