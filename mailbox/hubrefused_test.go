package mailbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestARefusedCopysNoteIsAFewKiBWhateverItsNames: a host that sends a copy
// with a sender's name of 60 KB of control bytes, an id as long and a
// body of a megabyte makes a note of at most RefusedNoteMax bytes, each
// name cut and escaped once; the count of notes kept stays the bound.
func TestARefusedCopysNoteIsAFewKiBWhateverItsNames(t *testing.T) {
	r := testStore(t).HubRefused()
	huge := strings.Repeat("\x01\x1b[2J", 12<<10) // 60 KiB of bytes a terminal acts on
	c := RefusedCopy{ID: huge, Host: "gpu", From: huge, To: "tester_agent", Reason: "it says it is from " + huge + ", whom no host runs", Refused: time.Now()}
	fresh, err := r.Keep(c, []byte(strings.Repeat("\x07", 1<<20)))
	if err != nil || !fresh {
		t.Fatalf("Keep: %v, %v", fresh, err)
	}
	notes, err := filepath.Glob(filepath.Join(r.Dir(), "copy-*.json"))
	if err != nil || len(notes) != 1 {
		t.Fatalf("notes %v, %v; want one", notes, err)
	}
	fi, err := os.Stat(notes[0])
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > RefusedNoteMax {
		t.Fatalf("the note is %d bytes; want at most %d", fi.Size(), RefusedNoteMax)
	}
	data, _ := os.ReadFile(notes[0])
	if strings.ContainsRune(string(data), '\x1b') || strings.Contains(string(data), `\u001b`) {
		t.Fatalf("the note keeps the escape byte itself, or escaped twice over: %.200s", data)
	}
	got, err := r.Newest(1)
	if err != nil || len(got) != 1 || !got[0].Clipped || !strings.HasSuffix(got[0].From, "…") {
		t.Fatalf("the note read back: %+v, %v; want its sender cut and its body clipped", got, err)
	}
	// The same copy refused again is the same note, counted once.
	if fresh, err := r.Keep(c, nil); err != nil || fresh {
		t.Fatalf("the same copy again: fresh %v, %v; want the note it has", fresh, err)
	}
}
