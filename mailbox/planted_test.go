package mailbox

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestPlantedMarksFollowNoLink: with a link to another file in the place of
// the record of planted files, recording fails and the other file is left
// as it was; the master says it could not record, and writes nowhere the
// link's maker chose.
func TestPlantedMarksFollowNoLink(t *testing.T) {
	s := NewStore(t.TempDir())
	if err := s.Ensure("reviewer_agent"); err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(t.TempDir(), "chosen")
	if err := os.WriteFile(elsewhere, []byte("theirs\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, s.PlantedPath()); err != nil {
		t.Fatal(err)
	}
	if err := s.NotePlanted("reviewer_agent", []string{"x.json"}, time.Now()); err == nil {
		t.Error("recording through a link succeeded; want an error")
	}
	if data, _ := os.ReadFile(elsewhere); string(data) != "theirs\n" {
		t.Errorf("the file the link points at holds %q; want it as it was", data)
	}
}
