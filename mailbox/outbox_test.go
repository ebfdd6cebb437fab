package mailbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestOutboxFileFromDropToSentOrRejected(t *testing.T) {
	s := testStore(t)
	out := s.OutboxDir("dev")
	for name, data := range map[string]string{"a.json": "{}", ".draft.json": "{}", "notes.txt": "x", "b.json": "{}"} {
		if err := os.WriteFile(filepath.Join(out, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	paths, err := s.Pending("dev")
	if err != nil || len(paths) != 2 || filepath.Base(paths[0]) != "a.json" || filepath.Base(paths[1]) != "b.json" {
		t.Fatalf("pending = %q, %v; want a.json and b.json, not the draft or the text", paths, err)
	}
	if err := s.MarkSent("dev", paths[0], "20261122T080000.000000000Z_normal_x.json"); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkSent("dev", paths[0], "again.json"); err != nil {
		t.Errorf("marking a file sent twice = %v; want nothing to do", err)
	}
	// Rejected twice under the same name: the second gets a name of its own.
	for i := range 2 {
		r, err := s.Reject("dev", paths[1], "not a message")
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Finish(); err != nil {
			t.Fatal(err)
		}
		reason, _ := os.ReadFile(r.Path + ".error")
		if string(reason) != "not a message\n" || (i == 1 && filepath.Base(r.Path) == "b.json") {
			t.Errorf("rejection %d: %s with reason %q", i, r.Path, reason)
		}
		os.WriteFile(paths[1], []byte("{}"), 0o600)
	}
}

// OpenPending is the master's one look at an outbox file: what it posts,
// or why it is not posted yet, or refused.
func TestOpenPendingSaysWhatAFileIs(t *testing.T) {
	s := testStore(t)
	out := s.OutboxDir("dev")
	now := time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)
	write := func(name, data string) string {
		path := filepath.Join(out, name)
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}

	path := write("ok.json", `{"to":["rev"],"title":"hi"}`)
	msg, err := s.OpenPending("dev", path, now)
	if err != nil || msg.From != "dev" || msg.ID == "" {
		t.Fatalf("a message with no sender or id = %+v, %v; want from dev, with an id", msg, err)
	}
	again, err := s.OpenPending("dev", path, now.Add(time.Minute))
	if err != nil || again.ID != msg.ID {
		t.Errorf("read again after a crash: id %q, %v; want the id given first, %q, written back", again.ID, err, msg.ID)
	}

	var unsettled *Unsettled
	if _, err := s.OpenPending("dev", write("half.json", `{"to":["rev"],"ti`), now); !errors.As(err, &unsettled) || unsettled.Stamp == "" {
		t.Errorf("a half-written file = %v; want it unsettled, with a stamp", err)
	}
	for name, data := range map[string]string{
		"spoof.json":   `{"from":"boss","to":["rev"],"title":"hi"}`,
		"notitle.json": `{"to":["rev"]}`,
	} {
		var refused Refusal
		if _, err := s.OpenPending("dev", write(name, data), now); !errors.As(err, &refused) {
			t.Errorf("%s = %v; want a refusal that says why", name, err)
		}
	}
	if _, err := s.OpenPending("dev", filepath.Join(out, "gone.json"), now); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a file gone meanwhile = %v; want fs.ErrNotExist", err)
	}
}

func TestReadPendingRefusesWhatIsNotAFile(t *testing.T) {
	s := testStore(t)
	out := s.OutboxDir("dev")
	link, fifo, big := filepath.Join(out, "l.json"), filepath.Join(out, "f.json"), filepath.Join(out, "big.json")
	os.Symlink("/etc/passwd", link)
	syscall.Mkfifo(fifo, 0o600)
	os.WriteFile(big, make([]byte, MaxFileSize+1), 0o600)
	for _, path := range []string{link, fifo, big} {
		var refused Refusal
		if _, _, err := ReadPending(path, MaxFileSize); !errors.As(err, &refused) {
			t.Errorf("%s: %v; want a refusal, unread", filepath.Base(path), err)
		}
	}
}

func TestSweepTemporariesKeepsFreshOnes(t *testing.T) {
	s := testStore(t)
	old, fresh := filepath.Join(s.TmpDir("dev"), ".tmp-old"), filepath.Join(s.TmpDir("dev"), ".tmp-fresh")
	os.WriteFile(old, nil, 0o600)
	os.WriteFile(fresh, nil, 0o600)
	os.Chtimes(old, time.Now().Add(-2*time.Hour), time.Now().Add(-2*time.Hour))
	s.SweepTemporaries("dev", time.Now().Add(-time.Hour))
	if _, err := os.Stat(old); err == nil {
		t.Error("an old temporary was left")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("a fresh temporary was swept: a writer may still need it")
	}
}
