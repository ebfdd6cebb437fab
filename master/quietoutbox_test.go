package master

import (
	"os"
	"testing"
	"time"
)

// TestAQuietOutboxIsListedAgainOnceItChanged: the scan lists an outbox
// that held nothing to route again only when its folder changed; a file
// put there is found even when the folder's times are set back as they
// were (the kernel's change time, which no one sets, tells), and with no
// event to tell of it (a polled master).
func TestAQuietOutboxIsListedAgainOnceItChanged(t *testing.T) {
	h := newHarness(t)
	h.start(Options{Poll: 20 * time.Millisecond})
	// An outbox changed a moment ago is listed each time: its stamp may
	// not tell the next change. This one is an hour old.
	dir := h.store.OutboxDir("tester_agent")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(dir, old, old); err != nil {
		t.Fatal(err)
	}
	// Two messages routed one after the other: the scan went past the
	// tester's quiet outbox at least once between them.
	for i, title := range []string{"first", "second"} {
		h.drop("developer_agent", title+".json", `{"to":"reviewer_agent","title":"`+title+`"}`)
		h.waitInbox("reviewer_agent", i+1)
	}
	h.drop("tester_agent", "found.json", `{"to":"developer_agent","title":"found"}`)
	if err := os.Chtimes(dir, old, old); err != nil {
		t.Fatal(err)
	}
	got := h.waitInbox("developer_agent", 1)
	if got[0].Title != "found" {
		t.Fatalf("the developer has %q, want the tester's message", got[0].Title)
	}
}
