package mailbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"switchboard/internal/watch"
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

// indexedInbox delivers a normal and an urgent message to rev, settles its
// inbox and has it indexed; it returns the index's path and the names.
func indexedInbox(t *testing.T) (s *Store, path string, names []string) {
	t.Helper()
	s = testStore(t)
	s.Durable = false
	base := time.Date(2026, 11, 22, 8, 57, 0, 0, time.UTC)
	for i, p := range []string{PriorityNormal, PriorityUrgent} {
		m := testMessage("0193a7c2-000"+string(rune('1'+i)), base.Add(time.Duration(i)*time.Second), p)
		if _, err := s.Deliver("rev", m); err != nil {
			t.Fatal(err)
		}
		names = append(names, FileName(m.DeliveredAt, m.Priority, m.ID))
	}
	settle(t, s, "rev")
	if sum, err := s.InboxSummary("rev"); err != nil || sum.Unread != 2 {
		t.Fatalf("summary = %+v, %v; want 2 unread", sum, err)
	}
	return s, filepath.Join(s.AgentDir("rev"), "inbox.index"), names
}

// editByHand writes data over the file at path in place, as an editor
// does some time after switchboard wrote it: its modification time moves.
func editByHand(t *testing.T, path, data string) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	later := info.ModTime().Add(time.Second)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
}

// TestTheSummaryIsReadFromTheIndexHead: the status line and the hooks read
// the counts at the head of a sealed index, not its names, which may be
// tens of thousands; an index the summary was read from without its seal
// is written again with one.
func TestTheSummaryIsReadFromTheIndexHead(t *testing.T) {
	s, path, names := indexedInbox(t)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(string(data), "\n")
	if want := "switchboard-inbox-index 5 "; !strings.HasPrefix(head, want) {
		t.Fatalf("the index starts %q; want %q", head, want)
	}
	// Names past the head, out of order and of no message: were they read,
	// the index would be made again from the folder.
	sealed := head + "\n2 1 0 -" + names[1] + " -" + names[1] + "\nz\ny\n.\n"
	if err := os.WriteFile(path, []byte(sealed), 0o600); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.AgentDir("rev"), "inbox.index.seal"), []byte(watch.Stamp(info)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if sum, err := s.InboxSummary("rev"); err != nil || sum.Unread != 2 || sum.Urgent != 1 || sum.Newest != names[1] {
		t.Errorf("summary of a sealed index = %+v, %v; want its head's", sum, err)
	}
	if got, _ := os.ReadFile(path); string(got) != sealed {
		t.Errorf("reading the summary of a sealed index wrote it again:\n%s", got)
	}
}

// TestAnIndexOfAnOlderFormIsReadAndWrittenAnew: an index left by an older
// switchboard (form 4 without a summary, form 3 with one nothing sealed)
// gives its names and their verdicts, its files are not checked again, and
// it is written again in the current form, sealed.
func TestAnIndexOfAnOlderFormIsReadAndWrittenAnew(t *testing.T) {
	for _, form := range []struct{ header, summary string }{
		{"switchboard-inbox-index 4", ""},
		{"switchboard-inbox-index 3", "7 7 0 -x -y\n"},
	} {
		s, path, names := indexedInbox(t)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		head, _, _ := strings.Cut(string(data), "\n")
		stamp := strings.TrimPrefix(head, "switchboard-inbox-index 5 ")
		// No file here is vouched for: checked again, each would count as
		// unverified. The old index says the first is.
		old := form.header + " " + stamp + "\n" + form.summary + names[0] + "\n!" + names[1] + "\n.\n"
		if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
			t.Fatal(err)
		}
		sum, err := s.InboxSummary("rev")
		if want := (InboxSummary{Unread: 2, Urgent: 1, Unverified: 1, Newest: names[1], NewestUrgent: names[1], Stamp: sum.Stamp}); err != nil || sum != want {
			t.Errorf("%s: summary = %+v, %v; want %+v", form.header, sum, err, want)
		}
		if got, _ := s.InboxIndex("rev"); !slices.Equal(got, names) {
			t.Errorf("%s: names = %q; want %q", form.header, got, names)
		}
		again, _ := os.ReadFile(path)
		if want := "switchboard-inbox-index 5 " + stamp + "\n2 1 1 -" + names[1] + " -" + names[1] + "\n"; !strings.HasPrefix(string(again), want) {
			t.Errorf("%s: the index was not written anew; it reads\n%s", form.header, again)
		}
		if _, sealed := s.sealedSummary("rev", stamp); !sealed {
			t.Errorf("%s: the index written anew has no seal", form.header)
		}
	}
}

// TestAnIndexEditedByHandIsNotBelievedOnItsSummary: a summary changed by
// hand, however well formed, or an index put in its place, is not read;
// the counts are those of the names.
func TestAnIndexEditedByHandIsNotBelievedOnItsSummary(t *testing.T) {
	s, path, names := indexedInbox(t)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head, rest, _ := strings.Cut(string(data), "\n")
	summary, body, _ := strings.Cut(rest, "\n")
	// Nothing here is vouched for by a record: both files are unverified.
	if want := "2 1 2 -" + names[1] + " -" + names[1]; summary != want {
		t.Fatalf("summary line %q; want %q", summary, want)
	}
	// Well formed, and of the same length: the file's size does not tell.
	madeUp := head + "\n1 1 1 -" + names[1] + " -" + names[1] + "\n" + body
	for what, write := range map[string]func(){
		"edited in place": func() { editByHand(t, path, madeUp) },
		"put in its place": func() {
			other := path + ".new"
			if err := os.WriteFile(other, []byte(madeUp), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(other, path); err != nil {
				t.Fatal(err)
			}
		},
	} {
		write()
		if sum, err := s.InboxSummary("rev"); err != nil || sum.Unread != 2 || sum.Urgent != 1 || sum.Newest != names[1] {
			t.Errorf("%s, the summary says %+v (%v); want 2 unread, 1 urgent", what, sum, err)
		}
	}
}
