package main

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"switchboard/internal/testkit/realclient"
	"switchboard/mailbox"
)

// After down and up, each agent's client goes on with the conversation it
// had: the model's next request carries the earlier turns. up --fresh
// starts anew.
func TestClaudeCodeGoesOnWithItsConversation(t *testing.T) { testResume(t, realclient.ClaudeCode) }
func TestCodexGoesOnWithItsConversation(t *testing.T)      { testResume(t, realclient.Codex) }

func testResume(t *testing.T, c realclient.Client) {
	t.Parallel() // as testHeadless
	tm, u := clientInTeam(t, c, "developer_agent", "Developer Agent", "")
	const agent = "developer_agent"
	u.API.Respond(replyToEachAnnounced("Noted"))
	upIdle := func(args ...string) {
		t.Helper()
		tm.must(append([]string{"up", "-d", "--no-console", "--socket", tm.socket}, args...)...)
		waitUntil(t, time.Minute, agent+" to be idle after start", func() bool { return tm.state(agent).State == mailbox.StateIdle }, tm.diagnose)
	}
	answered := func(title string) (id string, text string) {
		t.Helper()
		mark := u.API.Mark()
		id = tm.sendAs("reviewer_agent", agent, title)
		waitUntil(t, time.Minute, "the model's reply to "+title, func() bool {
			return len(responsesTo(t, tm.store, "reviewer_agent", id)) == 1
		}, func() string { return tm.diagnose() + dumpRequests(u.API.Since(mark)) })
		reqs := u.API.Since(mark)
		for _, r := range reqs {
			if r.Contains(id) {
				return id, r.Text
			}
		}
		t.Fatalf("no request carried %s\n%s", id, dumpRequests(reqs))
		return "", ""
	}

	upIdle()
	first, _ := answered("The release word is PLUM")
	tm.must("down")
	upIdle()
	_, text := answered("What was the release word?")
	if !containsAll(text, first, "The release word is PLUM") {
		t.Errorf("after down and up, the model's request does not carry the earlier turn (%s)\n%s", first, text)
	}
	tm.must("down")
	upIdle("--fresh")
	_, text = answered("Start over")
	if containsAll(text, first) {
		t.Errorf("after up --fresh, the model's request still carries the earlier turn")
	}
}

// containsAll reports whether text holds every part.
func containsAll(text string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(text, p) {
			return false
		}
	}
	return true
}

// A client killed with SIGKILL while the team is up runs again in its
// pane, on its conversation; the message sent while it was down reaches
// it once.
func TestClaudeCodeKilledComesBackOnItsConversation(t *testing.T) {
	t.Parallel() // as testHeadless
	tm, u := clientInTeam(t, realclient.ClaudeCode, "developer_agent", "Developer Agent", "")
	const agent = "developer_agent"
	u.API.Respond(replyToEachAnnounced("Noted"))
	tm.must("up", "-d", "--no-console", "--socket", tm.socket)
	waitUntil(t, time.Minute, agent+" to be idle after start", func() bool { return tm.state(agent).State == mailbox.StateIdle }, tm.diagnose)
	first := tm.sendAs("reviewer_agent", agent, "The release word is PLUM")
	waitUntil(t, time.Minute, "the model's first reply", func() bool {
		return len(responsesTo(t, tm.store, "reviewer_agent", first)) == 1
	}, tm.diagnose)
	waitUntil(t, time.Minute, agent+" to be idle after its turn", func() bool { return tm.state(agent).State == mailbox.StateIdle }, tm.diagnose)

	_, s := tm.session(agent)
	if err := syscall.Kill(s.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	mark := u.API.Mark()
	second := tm.sendAs("reviewer_agent", agent, "What was the release word?")
	waitUntil(t, time.Minute, "the model's reply after the kill", func() bool {
		return len(responsesTo(t, tm.store, "reviewer_agent", second)) == 1
	}, func() string { return tm.diagnose() + dumpRequests(u.API.Since(mark)) })
	t.Logf("the killed client answered %v after the kill", time.Since(killed).Round(time.Millisecond))
	reqs := u.API.Since(mark)
	last := reqs[len(reqs)-1].Text
	if !containsAll(last, first) {
		t.Errorf("the client came back on a new conversation: the earlier turn is not in its request\n%s", dumpRequests(reqs))
	}
	if n := listings(last, second); n != 1 {
		t.Errorf("the message sent while it was down is in the conversation %d times; want once\n%s", n, dumpRequests(reqs))
	}
}
