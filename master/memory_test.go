package master

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"switchboard/mailbox"
	"switchboard/rules"
)

// A team that runs for months: what the master keeps must not grow with the
// messages it has routed. It routes N messages, each read by its recipient
// as it arrives, then 4N more, and its retained heap (the test's process,
// after a collection) may grow by less than maxBytesPerMessage for each of
// the 4N. Before, it kept every message's pane announcement (the master had
// no team in tmux to type it to) and each read file's mark of being checked:
// about 250 bytes a message, which this bound catches four times over. The
// bound is on memory alone, not on time, so a slow machine does not fail it.
func TestMemoryDoesNotGrowWithMessagesRouted(t *testing.T) {
	const (
		first              = 500
		maxBytesPerMessage = 64
	)
	h := newHarness(t)
	team := make([]string, 10)
	var rulesFile strings.Builder
	rulesFile.WriteString("allowed_interactions:\n")
	for i := range team {
		team[i] = fmt.Sprintf("agent-%02d", i)
		fmt.Fprintf(&rulesFile, "  %s:\n    can_send_to: [\"*\"]\n    can_receive_from: [\"*\"]\n", team[i])
	}
	writeFile(t, filepath.Join(h.root, rules.FileName), rulesFile.String())
	h.start(Options{NoFsync: true})
	body := strings.Repeat("2 KB of body. ", 2048/14)
	routed := 0
	route := func(n int) {
		t.Helper()
		for routed < n {
			for i := range 100 {
				from, to := team[i%len(team)], team[(i+1+i/len(team))%len(team)]
				if to == from {
					to = team[(i+2)%len(team)]
				}
				m := &mailbox.Message{From: from, To: []string{to}, Title: fmt.Sprintf("message %d", routed+i), Content: body}
				m.Normalize(time.Now())
				if _, err := h.store.Post(from, m); err != nil {
					t.Fatal(err)
				}
			}
			routed += 100
			h.waitFor("the outboxes to empty", func() bool {
				for _, agent := range team {
					if !outboxEmpty(h, agent) {
						return false
					}
				}
				return true
			})
			for _, agent := range team {
				entries, err := h.store.List(agent, mailbox.Unread)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range entries {
					if _, err := h.store.MarkRead(agent, e); err != nil {
						t.Fatal(err)
					}
				}
			}
			h.log.forget() // a line a message, the test's memory, not the master's
		}
	}
	// retained is the least of a few looks a moment apart: the master may
	// be at work on the last reads (a file checked, a notice pending),
	// which is not what it keeps.
	retained := func() uint64 {
		least := uint64(0)
		for i := range 5 {
			time.Sleep(100 * time.Millisecond)
			runtime.GC()
			runtime.GC() // the second frees what the first left to finalizers and pools
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if i == 0 || ms.HeapAlloc < least {
				least = ms.HeapAlloc
			}
		}
		return least
	}
	route(first)
	before := retained()
	route(5 * first)
	after := retained()
	grown := int64(after) - int64(before)
	perMessage := float64(grown) / float64(4*first)
	t.Logf("retained heap %d KiB after %d messages, %d KiB after %d: %.0f bytes a message", before>>10, first, after>>10, 5*first, perMessage)
	if perMessage >= maxBytesPerMessage {
		t.Errorf("the master's retained heap grew by %.0f bytes for each message routed (%d KiB over %d messages); want less than %d: something is kept per message", perMessage, grown>>10, 4*first, maxBytesPerMessage)
	}
}
