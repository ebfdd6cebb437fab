package mailbox

import (
	"fmt"
	"os"
	"testing"
)

// TestNoticeMarksAreFoundAcrossChunks: every mark of a record several
// chunks long is found, the first line's and those cut by a chunk's edge
// among them, and a key marked twice gives its later mark.
func TestNoticeMarksAreFoundAcrossChunks(t *testing.T) {
	s := testStore(t)
	s.Durable = false
	const count = 4000 // about four chunks
	for i := range count {
		if err := s.VouchNotice("rev", &Message{ID: fmt.Sprintf("n-%05d", i), From: System, Title: fmt.Sprintf("notice %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	again := &Message{ID: "n-00007", From: System, Title: "marked again"}
	if err := s.VouchNotice("rev", again); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(s.NoticesPath()); info.Size() < 3*noticeChunk {
		t.Fatalf("the record is %d bytes; want several chunks", info.Size())
	}
	n := s.openNoticeMarks()
	defer n.close()
	if mark, ok := n.find("n-03999", "rev"); !ok || mark.ID != "n-03999" {
		t.Fatalf("the last mark: %+v, %v", mark, ok)
	}
	if len(n.marks) > count/2 {
		t.Errorf("finding the last mark read %d marks; want one chunk's", len(n.marks))
	}
	for i := count - 1; i >= 0; i-- {
		id := fmt.Sprintf("n-%05d", i)
		if mark, ok := n.find(id, "rev"); !ok || mark.ID != id || mark.To != "rev" {
			t.Fatalf("mark of %s: %+v, %v", id, mark, ok)
		}
	}
	if mark, _ := n.find("n-00007", "rev"); mark.Hash != Fingerprint(again) {
		t.Errorf("a key marked twice gave its first mark")
	}
	if _, ok := n.find("n-00001", "dev"); ok {
		t.Error("a mark was found for a recipient it does not name")
	}
	if _, ok := n.find("n-99999", "rev"); ok {
		t.Error("a mark was found for a notice never recorded")
	}
}
