package mailbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestTheHubOutboxKeepsCopiesInOrderAndOnce(t *testing.T) {
	s := NewStore(t.TempDir())
	o := s.HubOutbox()
	msg := func(id string) *Message {
		return &Message{ID: id, From: "developer_agent", To: []string{"tester_agent"}, Title: "t", Priority: PriorityNormal, Type: TypeNotification, Timestamp: time.Now().UTC()}
	}
	for _, c := range []struct {
		seq int64
		to  string
	}{{12, "tester_agent"}, {3, "reviewer_agent"}, {3, "tester_agent"}} {
		if wrote, err := o.Put(c.seq, c.to, msg("m-"+c.to)); err != nil || !wrote {
			t.Fatalf("put #%d for %s: %v, %v", c.seq, c.to, wrote, err)
		}
	}
	if wrote, err := o.Put(12, "tester_agent", msg("m-tester_agent")); err != nil || wrote {
		t.Errorf("a copy put again was written: %v, %v", wrote, err)
	}
	if err := os.WriteFile(filepath.Join(o.Dir(), "junk.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	copies, bad, err := o.Waiting(10)
	if err != nil || len(bad) != 1 || len(copies) != 3 {
		t.Fatalf("waiting: %d copies, bad %v, %v", len(copies), bad, err)
	}
	if copies[0].Seq != 3 || copies[0].To != "reviewer_agent" || copies[2].Seq != 12 || copies[2].Message.ID != "m-tester_agent" || copies[2].To != "tester_agent" {
		t.Errorf("order: %+v", copies)
	}
	if err := o.Done(copies[0]); err != nil {
		t.Fatal(err)
	}
	if copies, _, _ := o.Waiting(1); len(copies) != 1 || copies[0].Seq != 3 || copies[0].To != "tester_agent" {
		t.Errorf("after one is done, the next is %+v", copies)
	}
}

func TestTheHubOutboxNamesTheRecipientsWaiting(t *testing.T) {
	o := NewStore(t.TempDir()).HubOutbox()
	if got, err := o.Recipients(); err != nil || len(got) != 0 {
		t.Fatalf("an outbox never made: %v, %v", got, err)
	}
	for _, c := range []struct {
		seq int64
		to  string
	}{{7, "tester-agent-2"}, {7, "reviewer_agent"}, {9, "qa"}} {
		m := &Message{ID: NewID(), From: "developer_agent", To: []string{c.to}, Title: "t", Priority: PriorityNormal, Type: TypeNotification, Timestamp: time.Now().UTC()}
		if _, err := o.Put(c.seq, c.to, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(o.Dir(), "junk.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := o.Recipients()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got[7])
	if len(got) != 2 || !slices.Equal(got[7], []string{"reviewer_agent", "tester-agent-2"}) || !slices.Equal(got[9], []string{"qa"}) {
		t.Fatalf("recipients waiting: %v", got)
	}
}
