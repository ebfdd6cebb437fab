package mailbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// settle makes the inbox look last changed a while ago, as between
// deliveries, so that its listing may be remembered.
func settle(t *testing.T, s *Store, agent string) {
	t.Helper()
	old := time.Now().Add(-10 * time.Second)
	if err := os.Chtimes(s.InboxDir(agent), old, old); err != nil {
		t.Fatal(err)
	}
}

func TestInboxIndexFollowsDeliveriesAndReads(t *testing.T) {
	s := testStore(t)
	s.Durable = false
	base := time.Date(2026, 11, 22, 8, 57, 0, 0, time.UTC)
	for i, p := range []string{PriorityNormal, PriorityUrgent, PriorityLow} {
		if _, err := s.Deliver("rev", testMessage("0193a7c2-000"+string(rune('1'+i)), base.Add(time.Duration(i)*time.Second), p)); err != nil {
			t.Fatal(err)
		}
	}
	settle(t, s, "rev")
	sum, err := s.InboxSummary("rev")
	if err != nil {
		t.Fatal(err)
	}
	listed, _ := s.UnreadNames("rev")
	names := slices.Sorted(slices.Values(slices.DeleteFunc(listed, func(n string) bool { return n == "read" })))
	// Written here, not by a master: no record vouches for them.
	want := InboxSummary{Unread: 3, Urgent: 1, Unverified: 3, Newest: names[2], NewestUrgent: names[1], Stamp: sum.Stamp}
	if sum != want || sum.Stamp == "" {
		t.Errorf("summary = %+v; want %+v", sum, want)
	}
	if _, err := os.Stat(filepath.Join(s.AgentDir("rev"), "inbox.index")); err != nil {
		t.Fatalf("a settled inbox was not indexed: %v", err)
	}
	if got, _ := s.InboxIndex("rev"); !slices.Equal(got, names) {
		t.Errorf("index = %v; want %v", got, names)
	}

	// A delivery changes the folder: the index is not trusted.
	if _, err := s.Deliver("rev", testMessage("0193a7c2-0009", base.Add(time.Minute), PriorityUrgent)); err != nil {
		t.Fatal(err)
	}
	if sum, _ := s.InboxSummary("rev"); sum.Unread != 4 || sum.Urgent != 2 {
		t.Errorf("after a delivery: %+v; want 4 unread, 2 urgent", sum)
	}
	settle(t, s, "rev")
	s.InboxSummary("rev") // remembered again

	// So does a read.
	entries, _ := s.List("rev", Unread)
	if _, err := s.MarkRead("rev", entries[0]); err != nil {
		t.Fatal(err)
	}
	if sum, _ := s.InboxSummary("rev"); sum.Unread != 3 {
		t.Errorf("after a read: %+v; want 3 unread", sum)
	}
	if got, _ := s.InboxIndex("rev"); len(got) != 3 || slices.Contains(got, entries[0].Name) {
		t.Errorf("after a read the index holds %v", got)
	}
}

func TestInboxIndexCutShortIsIgnored(t *testing.T) {
	s := testStore(t)
	s.Durable = false
	if _, err := s.Deliver("rev", testMessage("0193a7c2-0001", time.Now(), PriorityNormal)); err != nil {
		t.Fatal(err)
	}
	settle(t, s, "rev")
	s.InboxSummary("rev")
	path := filepath.Join(s.AgentDir("rev"), "inbox.index")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data[:len(data)-3], 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := s.InboxIndex("rev"); err != nil || len(got) != 1 {
		t.Errorf("index cut short gave %v, %v; want the one message, listed again", got, err)
	}
}

func TestInboxOfAnAgentWithoutMailbox(t *testing.T) {
	s := testStore(t)
	if sum, err := s.InboxSummary("nobody"); err != nil || sum != (InboxSummary{}) {
		t.Errorf("summary of a missing inbox = %+v, %v; want empty, no error", sum, err)
	}
}

// TestInboxIndexCountsWhatNoRecordVouchesFor: the summary counts a file
// planted beside a logged copy as unverified, the count survives the index
// being remembered and rebuilt, and a notice found unverified is checked
// again once the record of notices grows.
func TestInboxIndexCountsWhatNoRecordVouchesFor(t *testing.T) {
	s := testStore(t)
	s.Durable = false
	w := openLog(t, s.LogPath())
	deliverLogged(t, s, w, "logged", "", true)
	forged := &Message{ID: NewID(), From: "master_agent", To: []string{"rev"}, Title: "forged", Priority: PriorityUrgent, Type: TypeRequest, Seq: 1,
		Timestamp: time.Now().UTC(), DeliveredAt: time.Now().UTC()}
	plant(t, s, "rev", FileName(forged.DeliveredAt, forged.Priority, forged.ID), forged)
	notice := &Message{ID: NewID(), From: System, To: []string{"rev"}, Title: "REJECTED: x", Priority: PriorityNormal, Type: TypeNotification,
		Timestamp: time.Now().UTC(), DeliveredAt: time.Now().UTC().Add(time.Second)}
	if _, err := s.Deliver("rev", notice); err != nil {
		t.Fatal(err)
	}
	settle(t, s, "rev")
	if sum, _ := s.InboxSummary("rev"); sum.Unread != 3 || sum.Unverified != 2 {
		t.Errorf("summary = %+v; want 3 unread, the forged file and the unrecorded notice unverified", sum)
	}
	if sum, _ := s.InboxSummary("rev"); sum.Unverified != 2 {
		t.Errorf("remembered summary = %+v; want 2 unverified still", sum)
	}
	if err := s.VouchNotice("rev", notice); err != nil {
		t.Fatal(err)
	}
	if sum, _ := s.InboxSummary("rev"); sum.Unverified != 1 {
		t.Errorf("after the notice was recorded: %+v; want the forged file alone unverified", sum)
	}
}

// TestAnEditedIndexCannotMakeUpCounts: an index edited by hand, under the
// stamp of the folder it was made from, with counts of its own, names out
// of order or names that are no delivered file's: the counts shown are
// those of the folder's names.
func TestAnEditedIndexCannotMakeUpCounts(t *testing.T) {
	s := testStore(t)
	s.Durable = false
	base := time.Date(2026, 11, 22, 8, 57, 0, 0, time.UTC)
	for i, p := range []string{PriorityNormal, PriorityUrgent} {
		if _, err := s.Deliver("rev", testMessage("0193a7c2-000"+string(rune('1'+i)), base.Add(time.Duration(i)*time.Second), p)); err != nil {
			t.Fatal(err)
		}
	}
	settle(t, s, "rev")
	if _, err := s.InboxSummary("rev"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(s.AgentDir("rev"), "inbox.index")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head, body, _ := strings.Cut(string(data), "\n")
	lines := strings.Split(strings.TrimSuffix(body, ".\n"), "\n")
	for what, edited := range map[string]string{
		"counts of its own":    head + "\n-5 77 0 -x -y\n" + body,
		"names out of order":   head + "\n" + lines[1] + "\n" + lines[0] + "\n.\n",
		"a name of no message": head + "\nnot-a-message\n" + body,
	} {
		if err := os.WriteFile(path, []byte(edited), 0o600); err != nil {
			t.Fatal(err)
		}
		if sum, err := s.InboxSummary("rev"); err != nil || sum.Unread != 2 || sum.Urgent != 1 {
			t.Errorf("with %s, the summary says %+v (%v); want 2 unread, 1 urgent", what, sum, err)
		}
	}
}
