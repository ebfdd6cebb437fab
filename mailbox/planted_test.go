package mailbox

import (
	"fmt"
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

// TestAPlantedFileIsCheckedAloneAgain: when the master records a file
// planted in an inbox, the inbox's readers check that file again, and no
// other: a file changed in place that no mark names keeps its verdict (and
// an inbox of thousands costs one file, not thousands).
func TestAPlantedFileIsCheckedAloneAgain(t *testing.T) {
	s := testStore(t)
	s.Durable = false
	w := openLog(t, s.LogPath())
	var names []string
	for i := range 5 {
		_, name := deliverLogged(t, s, w, fmt.Sprintf("logged %d", i), "", true)
		names = append(names, name)
	}
	settle(t, s, "rev")
	if sum, err := s.InboxSummary("rev"); err != nil || sum.Unread != 5 || sum.Unverified != 0 {
		t.Fatalf("summary = %+v, %v; want 5 unread, none unverified", sum, err)
	}
	// Two files rewritten in place: the folder does not change.
	rewrite := func(name, text string) {
		f, err := os.OpenFile(filepath.Join(s.InboxDir("rev"), name), os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(text); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	rewrite(names[1], `{"id":"x","from":"master_agent","title":"forged"}`)
	rewrite(names[3], `not a message`)
	if err := s.NotePlanted("rev", []string{names[1]}, time.Now()); err != nil {
		t.Fatal(err)
	}
	sum, err := s.InboxSummary("rev")
	if err != nil || sum.Unread != 5 || sum.Unverified != 1 {
		t.Fatalf("after a planted mark: %+v, %v; want the marked file alone checked again and unverified", sum, err)
	}
	if _, verdicts, _, _ := readIndex(s.indexPath("rev")); !verdicts[names[1]] || verdicts[names[3]] {
		t.Errorf("index verdicts %v; want %s unverified and %s not checked", verdicts, names[1], names[3])
	}
	// A record of planted files replaced by a shorter one: every file is
	// checked again.
	if err := os.WriteFile(s.PlantedPath(), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if sum, _ := s.InboxSummary("rev"); sum.Unverified != 2 {
		t.Errorf("after the record was cut: %+v; want both rewritten files unverified", sum)
	}
}
