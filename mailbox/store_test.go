package mailbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func testStore(t *testing.T) *Store {
	t.Helper()
	s := NewStore(t.TempDir())
	for _, a := range []string{"dev", "rev"} {
		if err := s.Ensure(a); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func testMessage(id string, at time.Time, priority string) *Message {
	return &Message{ID: id, Timestamp: at, DeliveredAt: at, From: "dev", To: []string{"rev"}, Title: "t " + id[len(id)-1:], Priority: priority, Type: TypeNotification}
}

func TestEnsureMakesPrivateFolders(t *testing.T) {
	s := testStore(t)
	for _, dir := range []string{s.Dir, s.InboxDir("dev"), s.ReadDir("dev"), s.OutboxDir("dev"), s.SentDir("dev"), s.RejectedDir("dev"), s.TmpDir("dev")} {
		fi, err := os.Stat(dir)
		if err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v, mode %v; want a 0700 folder", dir, err, fi.Mode().Perm())
		}
	}
	if err := s.Ensure("Not Valid"); err == nil {
		t.Errorf("Ensure accepted a bad agent name")
	}
}

func TestPublishNeverReplacesAndLeavesNoTemporaries(t *testing.T) {
	s := testStore(t)
	dir := s.InboxDir("rev")
	if err := Publish(s.TmpDir("rev"), dir, "m.json", []byte("first"), true); err != nil {
		t.Fatal(err)
	}
	err := Publish(s.TmpDir("rev"), dir, "m.json", []byte("second"), true)
	if !errors.Is(err, ErrExists) {
		t.Errorf("second Publish = %v; want ErrExists", err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "m.json")); string(data) != "first" {
		t.Errorf("the file now holds %q; Publish must never replace", data)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "m.json")); fi.Mode().Perm() != 0o600 {
		t.Errorf("published file mode %v; want 0600", fi.Mode().Perm())
	}
	if err := Replace(s.TmpDir("rev"), dir, "m.json", []byte("third"), false); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "m.json")); string(data) != "third" {
		t.Errorf("Replace left %q", data)
	}
	if left, _ := os.ReadDir(s.TmpDir("rev")); len(left) != 0 {
		t.Errorf("%d temporaries left behind", len(left))
	}
}

func TestDeliverIsIdempotentAlsoAfterRead(t *testing.T) {
	s := testStore(t)
	m := testMessage("01a20000-0000-7000-8000-000000000001", time.Now(), PriorityNormal)
	if ok, err := s.Deliver("rev", m); !ok || err != nil {
		t.Fatalf("first Deliver = %v, %v", ok, err)
	}
	if ok, err := s.Deliver("rev", m); ok || err != nil {
		t.Errorf("second Deliver = %v, %v; want a no-op", ok, err)
	}
	entries, _ := s.List("rev", Unread)
	if _, err := s.MarkRead("rev", entries[0]); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Deliver("rev", m); ok || err != nil {
		t.Errorf("Deliver after read = %v, %v; a read message must not come back", ok, err)
	}
	if all, _ := s.List("rev", All); len(all) != 1 || !all[0].Read {
		t.Errorf("List(All) = %+v; want the one read copy", all)
	}
}

func TestListFindAndCount(t *testing.T) {
	s := testStore(t)
	base := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	ids := []string{"01a20000-0000-7000-8000-0000000000a1", "01a20000-0000-7000-8000-0000000000b2", "01a20000-0000-7000-8000-0000000000b3"}
	for i, id := range ids {
		if _, err := s.Deliver("rev", testMessage(id, base.Add(time.Duration(i)*time.Minute), []string{"urgent", "normal", "low"}[i])); err != nil {
			t.Fatal(err)
		}
	}
	if n, u, err := s.Counts("rev"); n != 3 || u != 1 || err != nil {
		t.Errorf("Counts = %d, %d, %v; want 3 unread, 1 urgent", n, u, err)
	}
	unread, _ := s.List("rev", Unread)
	if len(unread) != 3 || unread[0].ID != ids[0] || unread[2].ID != ids[2] {
		t.Errorf("List not oldest first: %+v", unread)
	}
	if e, err := s.Find("rev", ids[1]); err != nil || e.ID != ids[1] {
		t.Errorf("Find by id = %+v, %v", e, err)
	}
	if e, err := s.Find("rev", "01a20000-0000-7000-8000-0000000000a"); err != nil || e.ID != ids[0] {
		t.Errorf("Find by unique prefix = %+v, %v", e, err)
	}
	if _, err := s.Find("rev", "01a20000-0000-7000-8000-0000000000b"); err == nil || !strings.Contains(err.Error(), "matches 2 messages") {
		t.Errorf("Find by an ambiguous prefix = %v", err)
	}
	if _, err := s.Find("rev", "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Find of a missing id = %v; want ErrNotFound", err)
	}
	if n, _, err := s.Counts("nobody"); n != 0 || err != nil {
		t.Errorf("Counts of an agent without a mailbox = %d, %v", n, err)
	}
}

func TestPostPutsTheMessageInTheOutbox(t *testing.T) {
	s := testStore(t)
	m := testMessage("01a20000-0000-7000-8000-000000000007", time.Now(), PriorityNormal)
	name, err := s.Post("dev", m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Load(filepath.Join(s.OutboxDir("dev"), name))
	if err != nil || got.ID != m.ID || got.Title != m.Title {
		t.Errorf("Load(outbox) = %+v, %v", got, err)
	}
}

func TestStateFile(t *testing.T) {
	s := testStore(t)
	if _, ok, err := s.ReadState("dev"); ok || err != nil {
		t.Errorf("ReadState with no file = %v, %v", ok, err)
	}
	status := 3
	want := AgentState{State: StateExited, Since: time.Now().UTC().Truncate(time.Second), Source: SourcePane, ExitStatus: &status}
	if err := s.WriteState("dev", want); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.ReadState("dev")
	if !ok || err != nil || got.State != want.State || *got.ExitStatus != 3 {
		t.Errorf("ReadState = %+v, %v, %v", got, ok, err)
	}
	if err := s.WriteState("dev", AgentState{State: "sleeping"}); err == nil {
		t.Errorf("WriteState accepted an unknown state")
	}
}
