package mailbox

import (
	"fmt"
	"os"
	"testing"
	"time"
)

func noticeTo(id, title string, at time.Time) *Message {
	return &Message{ID: id, From: System, To: []string{"rev"}, Title: title, Priority: PriorityNormal, Type: TypeNotification, Timestamp: at, DeliveredAt: at}
}

// TestNoticeMarksAreFoundAcrossChunks: every notice of a record several
// chunks long is vouched for, the first line's and those cut by a chunk's
// edge among them; a notice sent again under its id (a second file, with
// another time) is vouched for as well as the first, whether their marks
// share a chunk or not; nothing else is.
func TestNoticeMarksAreFoundAcrossChunks(t *testing.T) {
	s := testStore(t)
	s.Durable = false
	at := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	const count = 4000 // about four chunks
	var notices []*Message
	for i := range count {
		m := noticeTo(fmt.Sprintf("n-%05d", i), fmt.Sprintf("notice %d", i), at.Add(time.Duration(i)*time.Second))
		notices = append(notices, m)
		if err := s.VouchNotice("rev", m); err != nil {
			t.Fatal(err)
		}
		if i == count-2 { // sent again at once: both marks in the last chunk
			again := noticeTo(m.ID, "sent again", at.Add(time.Hour))
			notices = append(notices, again)
			if err := s.VouchNotice("rev", again); err != nil {
				t.Fatal(err)
			}
		}
	}
	early := noticeTo("n-00007", "sent again much later", at.Add(2*time.Hour)) // its first mark chunks away
	notices = append(notices, early)
	if err := s.VouchNotice("rev", early); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(s.NoticesPath()); info.Size() < 3*noticeChunk {
		t.Fatalf("the record is %d bytes; want several chunks", info.Size())
	}
	n := s.openNoticeMarks()
	defer n.close()
	last := notices[len(notices)-2]
	if !n.vouches("rev", FileName(last.DeliveredAt, last.Priority, last.ID), last) {
		t.Fatal("the last notice is not vouched for")
	}
	if len(n.marks) > count/2 {
		t.Errorf("vouching for the last notice read %d marks; want one chunk's", len(n.marks))
	}
	for i := len(notices) - 1; i >= 0; i-- {
		m := notices[i]
		if !n.vouches("rev", FileName(m.DeliveredAt, m.Priority, m.ID), m) {
			t.Fatalf("notice %s (%s) is not vouched for", m.ID, m.Title)
		}
	}
	m := notices[1]
	if n.vouches("dev", FileName(m.DeliveredAt, m.Priority, m.ID), m) {
		t.Error("a notice is vouched for in the inbox of an agent its mark does not name")
	}
	forged := noticeTo("n-99999", "never recorded", at)
	if n.vouches("rev", FileName(forged.DeliveredAt, forged.Priority, forged.ID), forged) {
		t.Error("a notice never recorded is vouched for")
	}
	changed := *notices[3]
	changed.Title = "changed after it was recorded"
	if n.vouches("rev", FileName(changed.DeliveredAt, changed.Priority, changed.ID), &changed) {
		t.Error("a notice changed after its mark is vouched for")
	}
}
