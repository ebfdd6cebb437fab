package master

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"switchboard/mailbox"
)

// These tests put the workspace in the states a master killed between two
// steps of routing leaves behind, and check that the next master finishes the
// job without delivering or logging anything twice. The end-to-end test with
// kill -9 is in cmd/switchboard.

func TestRestartAfterLoggingBeforeDelivery(t *testing.T) {
	h := newHarness(t)
	msg := post(t, h, "developer_agent", &mailbox.Message{To: []string{"reviewer_agent", "tester_agent"}, Title: "logged, not delivered"})
	crashAfterLogging(t, h, msg, []string{"reviewer_agent", "tester_agent"})

	h.start(Options{})
	h.waitInbox("tester_agent", 1)
	got := h.waitInbox("reviewer_agent", 1)
	if got[0].Seq != 1 {
		t.Errorf("delivered with seq %d; want the seq of the record written before the crash, 1", got[0].Seq)
	}
	h.waitFor("outbox to empty", func() bool { return outboxEmpty(h, "developer_agent") })
	if recs := h.records(); len(recs) != 1 {
		t.Errorf("log has %d records; want the one written before the crash", len(recs))
	}
}

func TestRestartAfterDeliveryAndReadBeforeMove(t *testing.T) {
	h := newHarness(t)
	msg := post(t, h, "developer_agent", &mailbox.Message{To: []string{"reviewer_agent"}, Title: "delivered, read, not moved"})
	rec := crashAfterLogging(t, h, msg, []string{"reviewer_agent"})
	copy := *msg
	copy.Seq, copy.DeliveredAt = rec.Seq, rec.Time
	if err := h.store.Ensure("reviewer_agent"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.Deliver("reviewer_agent", &copy); err != nil {
		t.Fatal(err)
	}
	entries, _ := h.store.List("reviewer_agent", mailbox.Unread)
	if _, err := h.store.MarkRead("reviewer_agent", entries[0]); err != nil {
		t.Fatal(err)
	}

	h.start(Options{})
	h.waitFor("outbox to empty", func() bool { return outboxEmpty(h, "developer_agent") })
	if all := h.inbox("reviewer_agent", mailbox.All); len(all) != 1 {
		t.Errorf("reviewer has %d copies; want the one already read", len(all))
	}
	if unread := h.inbox("reviewer_agent", mailbox.Unread); len(unread) != 0 {
		t.Errorf("a message already read came back unread")
	}
}

func TestRestartAfterHalfWrittenLogLine(t *testing.T) {
	h := newHarness(t)
	if err := h.store.Ensure(mailbox.Operator); err != nil {
		t.Fatal(err)
	}
	first := post(t, h, "developer_agent", &mailbox.Message{To: []string{"reviewer_agent"}, Title: "first"})
	crashAfterLogging(t, h, first, []string{"reviewer_agent"})
	f, err := os.OpenFile(h.store.LogPath(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"seq":2,"time":"2026-`)
	f.Close()
	post(t, h, "developer_agent", &mailbox.Message{To: []string{"reviewer_agent"}, Title: "second"})

	h.start(Options{})
	h.waitInbox("reviewer_agent", 2)
	recs := h.records()
	if len(recs) != 2 || recs[0].Seq != 1 || recs[1].Seq != 2 {
		t.Errorf("log seqs = %v; want 1, 2 with the half-written line dropped", seqs(recs))
	}
}

// crashAfterLogging writes the log record a master writes before delivering,
// and stops there.
func crashAfterLogging(t *testing.T, h *harness, msg *mailbox.Message, to []string) mailbox.Record {
	t.Helper()
	w, err := mailbox.OpenLogWriter(h.store.LogPath(), false)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	rec, err := w.Append(mailbox.Record{Time: time.Now().UTC(), Status: mailbox.StatusDelivered, Delivered: to, Message: msg})
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func outboxEmpty(h *harness, agent string) bool {
	entries, _ := os.ReadDir(h.store.OutboxDir(agent))
	for _, e := range entries {
		if filepath.Ext(e.Name()) == ".json" {
			return false
		}
	}
	return true
}

func seqs(recs []mailbox.Record) []int64 {
	var out []int64
	for _, r := range recs {
		out = append(out, r.Seq)
	}
	return out
}
