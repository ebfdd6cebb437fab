package master

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"switchboard/mailbox"
)

// A sweep of a large inbox goes a chunk a pass: a hurried one asks for the
// next pass at once; a sweep at rest, asked for while one is under way,
// goes on with it.
func TestAnInboxSweepGoesAChunkAPass(t *testing.T) {
	h := newHarness(t)
	m := New(h.root, Options{Log: io.Discard})
	m.watched = map[string]bool{"reviewer_agent": true, "tester_agent": true}
	const n = 2*sweepChunk + 10
	for i := range n {
		msg := &mailbox.Message{ID: mailbox.NewID(), From: "developer_agent", To: []string{"reviewer_agent"}, Title: fmt.Sprintf("m%d", i)}
		msg.Normalize(time.Now())
		msg.Seq, msg.DeliveredAt = int64(i+1), time.Now()
		if _, err := h.store.Deliver("reviewer_agent", msg); err != nil {
			t.Fatal(err)
		}
	}
	names, err := h.store.UnreadNames("reviewer_agent")
	if err != nil || len(names) < n {
		t.Fatalf("%d unread, %v", len(names), err)
	}
	m.startSweep(true)
	var chunks []int
	for {
		arrived := make(map[string][]arrival)
		more := m.sweepNext(arrived)
		chunks = append(chunks, len(arrived["reviewer_agent"]))
		if !more {
			break
		}
		m.startSweep(false)
	}
	total := 0
	for _, c := range chunks {
		total += c
	}
	if len(chunks) != 3 || chunks[0] != sweepChunk || total != n {
		t.Errorf("chunks of the sweep: %v; want %d files in three passes, the first of %d", chunks, n, sweepChunk)
	}
	// At rest, a sweep takes a chunk when asked, and asks for no pass.
	m.startSweep(false)
	if more := m.sweepNext(make(map[string][]arrival)); more {
		t.Error("a sweep at rest asked for the next pass at once")
	}
}

// A pass reads at most about sweepBytes of the files it has not checked:
// a restart under an inbox of large messages routes between passes.
func TestASweepReadsAMegabyteAPass(t *testing.T) {
	h := newHarness(t)
	m := New(h.root, Options{Log: io.Discard})
	m.watched = map[string]bool{"reviewer_agent": true}
	body := strings.Repeat("x", 100<<10)
	for i := range 30 {
		msg := &mailbox.Message{ID: mailbox.NewID(), From: "developer_agent", To: []string{"reviewer_agent"}, Title: fmt.Sprintf("m%d", i), Content: body}
		msg.Normalize(time.Now())
		msg.Seq, msg.DeliveredAt = int64(i+1), time.Now()
		if _, err := h.store.Deliver("reviewer_agent", msg); err != nil {
			t.Fatal(err)
		}
	}
	m.startSweep(true)
	arrived := make(map[string][]arrival)
	if more := m.sweepNext(arrived); !more {
		t.Fatal("a hurried sweep with files left asked for no next pass")
	}
	if got := len(arrived["reviewer_agent"]); got == 0 || got > sweepBytes/(100<<10)+1 {
		t.Errorf("a pass took %d files of 100 KB; want about a megabyte of them", got)
	}
}

// The master remembers the inbox files it checked for the sweep of unread
// files; a message read is forgotten once its file in read/ is checked, so
// that what it remembers is bounded by the mail unread, not by the mail
// ever read.
func TestAReadMessageIsNotRemembered(t *testing.T) {
	h := newHarness(t)
	m := New(h.root, Options{Log: io.Discard})
	m.watched = map[string]bool{"reviewer_agent": true}
	if err := h.store.Ensure("reviewer_agent"); err != nil {
		t.Fatal(err)
	}
	log, err := mailbox.OpenLogWriter(h.store.LogPath(), false)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	msg := &mailbox.Message{ID: mailbox.NewID(), From: "developer_agent", To: []string{"reviewer_agent"}, Title: "read at once"}
	msg.Normalize(time.Now())
	rec, err := log.Append(mailbox.Record{Time: time.Now().UTC(), Status: mailbox.StatusDelivered, Delivered: []string{"reviewer_agent"}, Hash: mailbox.Fingerprint(msg), Message: msg})
	if err != nil {
		t.Fatal(err)
	}
	copy := *msg
	copy.Seq, copy.DeliveredAt = rec.Seq, rec.Time
	if _, err := h.store.Deliver("reviewer_agent", &copy); err != nil {
		t.Fatal(err)
	}
	name := mailbox.FileName(copy.DeliveredAt, copy.Priority, copy.ID)
	m.checkInboxes(map[string][]arrival{"reviewer_agent": {{path: h.store.UnreadPath("reviewer_agent", name)}}})
	if len(m.known) != 1 {
		t.Fatalf("after the check of an unread message the master remembers %d files; want it", len(m.known))
	}
	info, _ := mailbox.ParseFileName(name)
	read, err := h.store.MarkRead("reviewer_agent", mailbox.Entry{FileInfo: info, Path: h.store.UnreadPath("reviewer_agent", name)})
	if err != nil {
		t.Fatal(err)
	}
	m.checkInboxes(map[string][]arrival{"reviewer_agent": {{path: read.Path}}})
	if len(m.known) != 0 {
		t.Errorf("after the message was read the master remembers %d files; want none: one a message read grows with the mail", len(m.known))
	}
	if exists(h.store.PlantedPath()) {
		t.Error("the message the master delivered was reported as planted")
	}
}
