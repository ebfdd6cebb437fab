package master

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"switchboard/internal/notify"
	"switchboard/mailbox"
	"switchboard/workspace"
)

func post(t *testing.T, h *harness, from string, m *mailbox.Message) *mailbox.Message {
	t.Helper()
	m.From = from
	m.Normalize(time.Now())
	if _, err := h.store.Post(from, m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDeliversLogsAndMovesToSent(t *testing.T) {
	h := newHarness(t)
	h.start(Options{})
	sent := post(t, h, "developer_agent", &mailbox.Message{To: []string{"reviewer_agent"}, Title: "Code review request for login feature", Type: mailbox.TypeRequest, Content: "auth.go"})

	got := h.waitInbox("reviewer_agent", 1)
	if got[0].ID != sent.ID || got[0].Content != "auth.go" || got[0].Seq != 1 || got[0].DeliveredAt.IsZero() {
		t.Errorf("delivered copy = %+v; want id %s, content, seq 1 and delivered_at", got[0], sent.ID)
	}
	h.waitFor("outbox to empty", func() bool {
		return !exists(filepath.Join(h.store.OutboxDir("developer_agent"), mailbox.FileName(sent.Timestamp, sent.Priority, sent.ID)))
	})
	if !exists(filepath.Join(h.store.SentDir("developer_agent"), mailbox.FileName(got[0].DeliveredAt, sent.Priority, sent.ID))) {
		t.Errorf("routed message is not in outbox/sent/")
	}
	recs := h.records()
	if len(recs) != 1 || recs[0].Seq != 1 || recs[0].Status != mailbox.StatusDelivered || recs[0].Message.ID != sent.ID {
		t.Errorf("log = %+v; want one delivered record with seq 1", recs)
	}
}

func TestFillsIDAndSenderOfARawMessage(t *testing.T) {
	h := newHarness(t)
	h.start(Options{})
	h.drop("developer_agent", "hello.json", `{"to": "tester_agent", "title": "Please test the login page"}`)

	got := h.waitInbox("tester_agent", 1)[0]
	if got.From != "developer_agent" || got.ID == "" || got.Timestamp.IsZero() || got.Priority != "normal" || got.Type != "notification" {
		t.Errorf("delivered %+v; want from, id, timestamp, priority and type filled in", got)
	}
}

func TestBlockedMessageNotifiesSenderAndIsLogged(t *testing.T) {
	h := newHarness(t)
	h.start(Options{})
	h.drop("tester_agent", "bug.json", `{"from": "tester_agent", "to": ["reviewer_agent"], "title": "Found a bug"}`)

	notices := h.waitInbox("tester_agent", 1)
	want := "BLOCKED: tester_agent → reviewer_agent: Should go through developer first"
	if notices[0].From != mailbox.System || notices[0].Title != want {
		t.Errorf("notice = %q from %q; want %q from switchboard", notices[0].Title, notices[0].From, want)
	}
	if got := h.inbox("reviewer_agent", mailbox.All); len(got) != 0 {
		t.Errorf("reviewer got %d messages; a blocked message must not be delivered", len(got))
	}
	recs := h.records()
	if len(recs) != 1 || recs[0].Status != mailbox.StatusBlocked || recs[0].Blocked[0].Reason != "Should go through developer first" {
		t.Errorf("log = %+v; want one blocked record with the reason", recs)
	}
}

func TestBroadcastReachesEveryoneTheRulesAllow(t *testing.T) {
	h := newHarness(t)
	h.start(Options{})
	post(t, h, "master_agent", &mailbox.Message{To: []string{"*"}, Title: "Standup in five minutes"})
	post(t, h, "tester_agent", &mailbox.Message{To: []string{"*"}, Title: "Tests are green"})

	// The tester's broadcast reaches master and developer; the reviewer is
	// forbidden, and the tester is told so. No one hears their own.
	h.waitInbox("developer_agent", 2)
	h.waitInbox("reviewer_agent", 1) // the master's alone
	h.waitInbox("master_agent", 1)
	told := false
	for _, m := range h.waitInbox("tester_agent", 2) { // the master's, and the notice
		told = told || m.From == mailbox.System && strings.Contains(m.Title, "reviewer_agent")
	}
	if !told {
		t.Errorf("the tester is not told that the reviewer may not hear it: %q", titles(h.inbox("tester_agent", mailbox.All)))
	}
	if n := len(h.inbox(mailbox.Operator, mailbox.All)); n != 0 {
		t.Errorf("operator got %d messages; a broadcast is for the team, not the person", n)
	}
	// The master may route the two in either order.
	recs := h.records()
	var tester *mailbox.Record
	for i := range recs {
		if recs[i].Message.From == "tester_agent" {
			tester = &recs[i]
		}
	}
	if len(recs) != 2 || tester == nil || tester.Status != mailbox.StatusPartial {
		t.Fatalf("log = %+v; want two records, the tester's broadcast logged as partial", recs)
	}
}

func TestRoutesWhatWasQueuedBeforeStart(t *testing.T) {
	h := newHarness(t)
	for i := range 5 {
		post(t, h, "developer_agent", &mailbox.Message{To: []string{"master_agent"}, Title: "queued " + string(rune('a'+i))})
	}
	h.start(Options{})
	h.waitInbox("master_agent", 5)
}

func TestPollModeRoutesWithoutInotify(t *testing.T) {
	h := newHarness(t)
	h.start(Options{Poll: 20 * time.Millisecond})
	post(t, h, "developer_agent", &mailbox.Message{To: []string{"reviewer_agent"}, Title: "polled"})
	h.waitInbox("reviewer_agent", 1)
}

func TestSecondMasterIsRefusedWithTheHoldersPid(t *testing.T) {
	h := newHarness(t)
	h.start(Options{})
	err := New(h.root, Options{}).Run(t.Context())
	if err == nil || !strings.Contains(err.Error(), "master already running (pid ") {
		t.Fatalf("second master: %v; want \"master already running (pid N)\"", err)
	}
	if pid, running := workspace.New(h.root).MasterRunning(); !running || pid == 0 {
		t.Errorf("Running = %d, %v; want the first master's pid", pid, running)
	}
}

func TestStopsCleanlyAndReleasesTheLock(t *testing.T) {
	h := newHarness(t)
	stop := h.start(Options{})
	if err := stop(); err != nil {
		t.Fatalf("Run returned %v after cancel; want nil", err)
	}
	if _, running := workspace.New(h.root).MasterRunning(); running {
		t.Errorf("lock still held after the master stopped")
	}
}

// TestAFullOutboxTakesTurnsWithTheOthers: the tester's outbox holds four
// turns of bad files when the master starts; a message the developer posts
// once the master is at them is routed within the next turns, not after
// them all.
func TestAFullOutboxTakesTurnsWithTheOthers(t *testing.T) {
	h := newHarness(t)
	const bad = 4 * turn
	for i := range bad {
		h.drop("tester_agent", fmt.Sprintf("bad-%04d.json", i), `{"to":"developer_agent"}`)
	}
	h.start(Options{})
	h.waitFor("the master to reject the first bad file", func() bool {
		return strings.Contains(h.log.String(), "rejected bad-")
	})
	post(t, h, "developer_agent", &mailbox.Message{To: []string{"reviewer_agent"}, Title: "Review the login change"})
	h.waitInbox("reviewer_agent", 1)
	h.waitFor("every bad file to be rejected", func() bool {
		return strings.Count(h.log.String(), "rejected bad-") == bad
	})
	log := h.log.String()
	routed := strings.Index(log, "developer_agent → reviewer_agent: Review the login change")
	// The turn under way when it was posted, the next if the pass after
	// had begun before the master heard of it, and one for slack.
	if before := bad - strings.Count(log[routed:], "rejected bad-"); before > 3*turn {
		t.Errorf("the developer's message was routed after %d of the %d bad files; want it routed within three turns of %d", before, bad, turn)
	}
}

// TestFilesThatCannotLeaveTheOutboxDoNotKeepTheMasterBusy: the tester's
// sent/ folder is a file, so that its messages are delivered but stay in the
// outbox, and it has more of them than a turn. The master does not take
// turn after turn of them for nothing: once the messages that follow are
// routed, it says nothing more of them.
func TestFilesThatCannotLeaveTheOutboxDoNotKeepTheMasterBusy(t *testing.T) {
	h := newHarness(t)
	h.start(Options{})
	h.putFileInPlaceOf(h.store.SentDir("tester_agent"))
	for i := range turn + 20 {
		h.drop("tester_agent", fmt.Sprintf("report-%03d.json", i), fmt.Sprintf(`{"to":"developer_agent","title":"Report %d"}`, i))
	}
	stuck := func() int { return strings.Count(h.log.String(), "cannot move it to sent/") }
	h.waitFor("a turn of the tester's messages to be delivered and stay", func() bool { return stuck() >= turn })
	// Each message routed needs a pass of the master's loop; the second
	// and the third come after any pass the tester's events asked for.
	var counts []int
	for i := range 3 {
		post(t, h, "developer_agent", &mailbox.Message{To: []string{"reviewer_agent"}, Title: fmt.Sprintf("Review %d", i)})
		h.waitInbox("reviewer_agent", i+1)
		counts = append(counts, stuck())
	}
	if counts[2] != counts[1] {
		t.Errorf("the master kept taking the tester's messages: %d lines saying one cannot be moved, then %d", counts[1], counts[2])
	}
}

// A question for the person is also told where they are, by the command
// the workspace's notify.yaml names, once; a message that asks nothing is
// not.
func TestThePersonIsToldOfAQuestionWhereverTheyAre(t *testing.T) {
	h := newHarness(t)
	told := filepath.Join(t.TempDir(), "told")
	writeFile(t, filepath.Join(h.root, notify.File), "command: [sh, -c, 'printf \"%s\\n\" \"$0\" >> "+told+"']\n")
	h.start(Options{})
	post(t, h, "master_agent", &mailbox.Message{To: []string{mailbox.Operator}, Title: "FYI: nightly build green", Type: mailbox.TypeStatus})
	post(t, h, "master_agent", &mailbox.Message{To: []string{mailbox.Operator}, Title: "Ship the release?", Type: mailbox.TypeQuery, RequiresResponse: true})
	h.waitInbox(mailbox.Operator, 2)
	h.waitFor("the person to be told", func() bool {
		data, _ := os.ReadFile(told)
		return strings.Contains(string(data), "QUESTION from master_agent: Ship the release?")
	})
	data, _ := os.ReadFile(told)
	if lines := strings.Split(strings.TrimSpace(string(data)), "\n"); len(lines) != 1 {
		t.Errorf("the person was told %q; want the question alone, once", lines)
	}
}
