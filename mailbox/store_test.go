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
	for _, dir := range []string{s.Dir, filepath.Dir(s.LogPath()), s.AgentDir("dev"), s.InboxDir("dev"), s.ReadDir("dev"), s.OutboxDir("dev"), s.SentDir("dev"), s.RejectedDir("dev"), s.TmpDir("dev")} {
		fi, err := os.Stat(dir)
		if err != nil {
			t.Errorf("Ensure did not make %s: %v", dir, err)
			continue
		}
		if !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v; want a 0700 folder", dir, fi.Mode())
		}
	}
	if err := s.Ensure("Not Valid"); err == nil {
		t.Errorf("Ensure accepted a bad agent name")
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
	entries, err := s.List("rev", Unread)
	if err != nil || len(entries) != 1 {
		t.Fatalf("List(Unread) = %+v, %v; want the one copy", entries, err)
	}
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

func TestMessageFilesArePrivate(t *testing.T) {
	s := testStore(t)
	m := testMessage("01a20000-0000-7000-8000-000000000001", time.Now(), PriorityNormal)
	posted, err := s.Post("dev", m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Deliver("rev", m); err != nil {
		t.Fatal(err)
	}
	delivered, err := s.List("rev", Unread)
	if err != nil || len(delivered) != 1 {
		t.Fatalf("List = %+v, %v; want the delivered copy", delivered, err)
	}
	read, err := s.MarkRead("rev", delivered[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(s.OutboxDir("dev"), posted), read.Path} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v; want 0600", path, fi.Mode().Perm())
		}
	}
}

func TestPostedMessageIsListedOnceDelivered(t *testing.T) {
	s := testStore(t)
	m := testMessage("01a20000-0000-7000-8000-000000000001", time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC), PriorityUrgent)
	if _, err := s.Post("dev", m); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Post("dev", m); !errors.Is(err, ErrExists) {
		t.Errorf("posting the same message twice = %v; want ErrExists", err)
	}
	if got, err := s.List("rev", All); err != nil || len(got) != 0 {
		t.Errorf("List(rev) before delivery = %+v, %v; a posted message is not in any inbox yet", got, err)
	}
	m.DeliveredAt = m.Timestamp.Add(time.Second)
	if _, err := s.Deliver("rev", m); err != nil {
		t.Fatal(err)
	}
	got, err := s.List("rev", All)
	if err != nil || len(got) != 1 {
		t.Fatalf("List(rev) after delivery = %+v, %v", got, err)
	}
	e := got[0]
	if e.ID != m.ID || e.Priority != PriorityUrgent || !e.Time.Equal(m.DeliveredAt) || e.Read {
		t.Errorf("entry = %+v; want unread urgent %s delivered at %v", e, m.ID, m.DeliveredAt)
	}
	loaded, err := Load(e.Path)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Title != m.Title || loaded.From != "dev" || !loaded.DeliveredAt.Equal(m.DeliveredAt) {
		t.Errorf("Load(inbox copy) = %+v", loaded)
	}
}

func TestListSeparatesUnreadAndRead(t *testing.T) {
	s := testStore(t)
	base := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	ids := []string{"01a20000-0000-7000-8000-000000000001", "01a20000-0000-7000-8000-000000000002", "01a20000-0000-7000-8000-000000000003"}
	for i, id := range ids {
		if _, err := s.Deliver("rev", testMessage(id, base.Add(time.Duration(i)*time.Second), PriorityNormal)); err != nil {
			t.Fatal(err)
		}
	}
	middle, err := s.Find("rev", ids[1])
	if err != nil {
		t.Fatal(err)
	}
	read, err := s.MarkRead("rev", middle)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := s.MarkRead("rev", read); err != nil || again.Path != read.Path {
		t.Errorf("MarkRead of a read message = %+v, %v; want it left where it is", again, err)
	}
	// Files that are not delivered messages are not listed.
	for _, stray := range []string{".tmp-123", "notes.txt", "20261122T080000.000000000Z_normal_x.json.error"} {
		if err := os.WriteFile(filepath.Join(s.InboxDir("rev"), stray), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(s.InboxDir("rev"), "20261122T090000.000000000Z_normal_dir.json"), 0o700); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		box  Box
		ids  []string
		read []bool
	}{
		{"unread", Unread, []string{ids[0], ids[2]}, []bool{false, false}},
		{"read", Read, []string{ids[1]}, []bool{true}},
		{"all", All, ids, []bool{false, true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.List("rev", tt.box)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.ids) {
				t.Fatalf("List = %+v; want %v", got, tt.ids)
			}
			for i, e := range got {
				wantDir := s.InboxDir("rev")
				if tt.read[i] {
					wantDir = s.ReadDir("rev")
				}
				if e.ID != tt.ids[i] || e.Read != tt.read[i] || filepath.Dir(e.Path) != wantDir {
					t.Errorf("entry %d = %+v; want %s, read %v, in %s", i, e, tt.ids[i], tt.read[i], wantDir)
				}
			}
		})
	}
	if got, err := s.List("nobody", All); err != nil || len(got) != 0 {
		t.Errorf("List of an agent without a mailbox = %+v, %v; want nothing", got, err)
	}
}

func TestFind(t *testing.T) {
	s := testStore(t)
	base := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	ids := []string{"0193a7c2-0000-7000-8000-000000000001", "0193a7c2-0000-7000-8000-000000000002", "0193b000-0000-7000-8000-000000000003"}
	for i, id := range ids {
		if _, err := s.Deliver("rev", testMessage(id, base.Add(time.Duration(i)*time.Second), PriorityNormal)); err != nil {
			t.Fatal(err)
		}
	}
	last, err := s.Find("rev", ids[2])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.MarkRead("rev", last); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, id string
		want     string // the id found, or "" for an error
		notFound bool
		msg      string
	}{
		{"full id", ids[1], ids[1], false, ""},
		{"full id of a read message", ids[2], ids[2], false, ""},
		{"unique prefix", "0193b", ids[2], false, ""},
		{"unique longer prefix", "0193a7c2-0000-7000-8000-000000000001", ids[0], false, ""},
		{"ambiguous prefix", "0193a7c2", "", false, `id prefix "0193a7c2" matches 2 messages of rev; give more of the id`},
		{"unknown id", "ffff", "", true, `no such message "ffff" in the mailbox of rev`},
		{"empty id", "", "", true, "no such message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := s.Find("rev", tt.id)
			if tt.want != "" {
				if err != nil || e.ID != tt.want {
					t.Errorf("Find(%q) = %+v, %v; want %s", tt.id, e, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("Find(%q) = %+v; want an error", tt.id, e)
			}
			if errors.Is(err, ErrNotFound) != tt.notFound {
				t.Errorf("Find(%q) = %v; errors.Is(ErrNotFound) should be %v", tt.id, err, tt.notFound)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("Find(%q) = %q; want it to say %q", tt.id, err, tt.msg)
			}
		})
	}
}

func TestMarkReadTwiceIsDone(t *testing.T) {
	s := testStore(t)
	if _, err := s.Deliver("rev", testMessage("0193a7c2-0001", time.Now(), PriorityNormal)); err != nil {
		t.Fatal(err)
	}
	entries, _ := s.List("rev", Unread)
	if _, err := s.MarkRead("rev", entries[0]); err != nil {
		t.Fatal(err)
	}
	// The same entry, read meanwhile by another command of the agent.
	if e, err := s.MarkRead("rev", entries[0]); err != nil || !e.Read {
		t.Errorf("marking a read message read again: %+v, %v; want done", e, err)
	}
}
