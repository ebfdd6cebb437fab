package main

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"switchboard/internal/testkit/realclient"
)

// After down and up, each agent's client goes on with the conversation it
// had: the model's next request carries the earlier turns. up --fresh
// starts anew.
func TestClaudeCodeGoesOnWithItsConversation(t *testing.T) { testResume(t, realclient.ClaudeCode) }
func TestCodexGoesOnWithItsConversation(t *testing.T)      { testResume(t, realclient.Codex) }
func TestGeminiCLIGoesOnWithItsConversation(t *testing.T)  { testResume(t, realclient.GeminiCLI) }

func testResume(t *testing.T, c realclient.Client) {
	t.Parallel() // as testHeadless
	tm, u := clientInTeam(t, c, "developer_agent", "Developer Agent", "")
	const agent = "developer_agent"
	u.API.Respond(replyToEachAnnounced("Noted"))
	tm.upIdle(agent)
	first, _ := tm.answered(u.API, agent, "The release word is PLUM")
	tm.must("down")
	tm.upIdle(agent)
	_, text := tm.answered(u.API, agent, "What was the release word?")
	if !containsAll(text, first, "The release word is PLUM") {
		t.Errorf("after down and up, the model's request does not carry the earlier turn (%s)\n%s", first, text)
	}
	// A client that writes the earlier turns again as it goes on does not
	// have them counted twice.
	usageIsCharged(t, tm, u, c, agent)
	tm.must("down")
	tm.upIdle(agent, "--fresh")
	_, text = tm.answered(u.API, agent, "Start over")
	// The words, not the id: Gemini CLI shows the model the workspace's
	// file names, the messages' among them.
	if containsAll(text, "The release word is PLUM") {
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
	tm.upIdle(agent)
	first, _ := tm.answered(u.API, agent, "The release word is PLUM")

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
		t.Errorf("the message sent while it was down is in the conversation %d times; want once\n%s%s", n, tm.diagnose(), dumpRequests(reqs))
	}
}
