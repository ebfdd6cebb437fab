package mailbox

import (
	"errors"
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

func TestReadPendingRefusesWhatIsNotAFile(t *testing.T) {
	s := testStore(t)
	out := s.OutboxDir("dev")
	link, fifo, big := filepath.Join(out, "l.json"), filepath.Join(out, "f.json"), filepath.Join(out, "big.json")
	os.Symlink("/etc/passwd", link)
	syscall.Mkfifo(fifo, 0o600)
	os.WriteFile(big, make([]byte, MaxFileSize+1), 0o600)
	for _, path := range []string{link, fifo, big} {
		var refused Refusal
		if _, _, err := ReadPending(path); !errors.As(err, &refused) {
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
