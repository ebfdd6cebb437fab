package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The mailboxes folder keeps its mail out of git by a .gitignore of its
// own; one the user changed is left alone.
func TestMakeMailboxesKeepsTheMailOutOfGit(t *testing.T) {
	ws := newTeam(t)
	if err := ws.MakeMailboxes(); err != nil {
		t.Fatal(err)
	}
	ignore := filepath.Join(ws.Store.Dir, ".gitignore")
	data, err := os.ReadFile(ignore)
	if err != nil || !strings.HasSuffix(string(data), "\n*\n") {
		t.Fatalf("mailboxes/.gitignore = %q, %v; want it to ignore everything", data, err)
	}
	if info, err := os.Stat(ws.Store.Dir); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("mailboxes/ = %v, %v; want it private (0700)", info, err)
	}
	if err := os.WriteFile(ignore, []byte("*\n!keep.txt\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := ws.MakeMailboxes(); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(ignore); string(data) != "*\n!keep.txt\n" {
		t.Errorf("MakeMailboxes rewrote the user's mailboxes/.gitignore: %q", data)
	}
	if _, err := os.Stat(filepath.Join(ws.Root, ".gitignore")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("MakeMailboxes touched the workspace's own .gitignore: %v", err)
	}
}
