package mailbox

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

// syncCounter counts the syncs a store makes, by path, and fails those of
// the paths in fail.
type syncCounter struct {
	mu     sync.Mutex
	synced map[string]int
	fail   map[string]bool
}

func countSyncs(s *Store) *syncCounter {
	c := &syncCounter{synced: make(map[string]int), fail: make(map[string]bool)}
	s.Hook = func(path string) error {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.fail[path] {
			return errors.New("an input/output error, for the test")
		}
		c.synced[path]++
		return nil
	}
	return c
}

// of is how many syncs of path went through, and how many syncs in all.
func (c *syncCounter) of(path string) (n, all int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range c.synced {
		all += k
	}
	return c.synced[path], all
}

func unreadCount(t *testing.T, s *Store, agent string) int {
	t.Helper()
	n, _, err := s.Counts(agent)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func stagedStore(t *testing.T) *Store {
	t.Helper()
	s := testStore(t)
	if err := s.UseStage(); err != nil {
		t.Fatal(err)
	}
	return s
}

func messagesFor(n int) []*Message {
	var msgs []*Message
	at := time.Now()
	for i := range n {
		msgs = append(msgs, testMessage(fmt.Sprintf("01a20000-0000-7000-8000-%012d", i+1), at, PriorityNormal))
	}
	return msgs
}

// TestADeliveryShowsNoCopyBeforeItIsPublished: copies written and synced
// have no name in any inbox until Publish, which gives each its name and
// leaves no temporary file behind; each copy is synced once, and each inbox
// folder once for all its copies.
func TestADeliveryShowsNoCopyBeforeItIsPublished(t *testing.T) {
	s := stagedStore(t)
	syncs := countSyncs(s)
	d := s.NewDelivery()
	var copies []*Copy
	for i, m := range messagesFor(5) {
		to := []string{"rev", "dev"}[i%2]
		copies = append(copies, d.AddFresh(to, m))
	}
	d.Sync()
	for _, agent := range []string{"rev", "dev"} {
		if n := unreadCount(t, s, agent); n != 0 {
			t.Errorf("the inbox of %s shows %d copies before Publish; want none", agent, n)
		}
	}
	d.Publish()
	for _, c := range copies {
		if c.Err != nil || !c.Written || !s.IsUnread(c.Agent, c.Name) {
			t.Errorf("copy %s for %s: written %v, %v; want it in the inbox", c.Name, c.Agent, c.Written, c.Err)
		}
	}
	if left, _ := os.ReadDir(s.StageDir()); len(left) != 0 {
		t.Errorf("temporaries left: %v", left)
	}
	rev, all := syncs.of(s.InboxDir("rev"))
	dev, _ := syncs.of(s.InboxDir("dev"))
	if rev != 1 || dev != 1 || all != 5+2 {
		t.Errorf("%d syncs, of them %d of rev's inbox and %d of dev's; want each of the 5 copies synced once and each inbox once", all, rev, dev)
	}
}

// TestACopyFoundThereIsKeptAndItsFolderSyncedAgain: a copy delivered before,
// unread or read since, is not written again, and the folder it lies in is
// synced before the delivery reports it in: the sync that made it durable
// may have failed, or never come.
func TestACopyFoundThereIsKeptAndItsFolderSyncedAgain(t *testing.T) {
	s := stagedStore(t)
	msgs := messagesFor(2)
	for _, m := range msgs {
		if _, err := s.DeliverUnsynced("rev", m); err != nil {
			t.Fatal(err)
		}
	}
	read, err := s.Find("rev", msgs[1].ID)
	if err == nil {
		_, err = s.MarkRead("rev", read)
	}
	if err != nil {
		t.Fatal(err)
	}
	syncs := countSyncs(s)
	d := s.NewDelivery()
	unread, wasRead := d.Add("rev", msgs[0]), d.Add("rev", msgs[1])
	d.Publish()
	for _, c := range []*Copy{unread, wasRead} {
		if c.Written || c.Err != nil {
			t.Errorf("copy %s: written %v, %v; want it found, not written again", c.Name, c.Written, c.Err)
		}
	}
	for _, dir := range []string{s.InboxDir("rev"), s.ReadDir("rev")} {
		if n, _ := syncs.of(dir); n != 1 {
			t.Errorf("%s synced %d times; want once", dir, n)
		}
	}
	if n := unreadCount(t, s, "rev"); n != 1 {
		t.Errorf("the inbox holds %d copies; want the one unread", n)
	}
}

// TestAFolderThatCannotBeSyncedFailsItsCopiesAlone: a copy is in for good
// only once its folder is synced; the copies in other inboxes are not held
// back.
func TestAFolderThatCannotBeSyncedFailsItsCopiesAlone(t *testing.T) {
	s := stagedStore(t)
	syncs := countSyncs(s)
	syncs.fail[s.InboxDir("dev")] = true
	d := s.NewDelivery()
	msgs := messagesFor(2)
	toDev, toRev := d.AddFresh("dev", msgs[0]), d.AddFresh("rev", msgs[1])
	d.Publish()
	if toDev.Err == nil {
		t.Errorf("the copy in dev's inbox, whose folder sync failed, has no error")
	}
	if toRev.Err != nil {
		t.Errorf("the copy in rev's inbox: %v; want it in", toRev.Err)
	}
}

// TestADiscardedDeliveryLeavesNothing: a delivery given up (its records
// could not be made durable) leaves no copy and no temporary file.
func TestADiscardedDeliveryLeavesNothing(t *testing.T) {
	s := stagedStore(t)
	d := s.NewDelivery()
	for _, m := range messagesFor(3) {
		d.AddFresh("rev", m)
	}
	d.Sync()
	d.Discard()
	if n := unreadCount(t, s, "rev"); n != 0 {
		t.Errorf("the inbox holds %d copies; want none", n)
	}
	if left, _ := os.ReadDir(s.StageDir()); len(left) != 0 {
		t.Errorf("temporaries left: %v", left)
	}
}

// TestADeliveryOfManyCopiesHoldsFewFilesOpen: past openMost copies, those
// written are synced and closed as the delivery goes, and all of them are
// published.
func TestADeliveryOfManyCopiesHoldsFewFilesOpen(t *testing.T) {
	s := stagedStore(t)
	d := s.NewDelivery()
	msgs := messagesFor(openMost*2 + 3)
	for i, m := range msgs {
		d.AddFresh("rev", m)
		if len(d.open) > openMost {
			t.Fatalf("%d temporary files open after %d copies; want at most %d", len(d.open), i+1, openMost)
		}
	}
	d.Publish()
	if n := unreadCount(t, s, "rev"); n != len(msgs) {
		t.Errorf("%d copies in the inbox; want %d", n, len(msgs))
	}
}
