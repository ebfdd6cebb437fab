package main

import (
	"strings"
	"testing"
	"time"

	"switchboard/conversation"
	"switchboard/internal/testkit/realclient"
	"switchboard/mailbox"
)

// A client whose model API says the account's rate limit is reached is
// limited, not failed: its state says so with what the client said, the
// overseers are told once, its pane is not started again, and mail that
// comes meanwhile waits.
func TestClaudeCodeAtItsRateLimitIsLimited(t *testing.T) {
	testLimited(t, realclient.ClaudeCode, "rate limited")
}

// Codex CLI runs no hook at the end of a turn that failed: its session
// log says the turn ended at the usage limit, and when the limit resets.
func TestCodexAtItsUsageLimitIsLimited(t *testing.T) {
	testLimited(t, realclient.Codex, "usage limit reached", "2030")
}

func testLimited(t *testing.T, c realclient.Client, said ...string) {
	t.Parallel() // as testHeadless
	tm, u := clientInTeam(t, c, "developer_agent", "Developer Agent", "")
	const agent = "developer_agent"
	u.API.Respond(func(r realclient.Request) realclient.Answer {
		if r.Tools {
			return realclient.Answer{RateLimited: true}
		}
		return realclient.TextReply(r)
	})
	tm.upIdle(agent)
	tm.sendAs("reviewer_agent", agent, "Start the build")
	waitUntil(t, time.Minute, agent+" to be limited", func() bool { return tm.state(agent).State == conversation.Limited }, tm.diagnose)
	if st := tm.state(agent); !containsAll(st.Detail, said...) {
		t.Errorf("state %+v; want the client's words %q in its detail", st, said)
	}
	told := func() int { return tm.unreadTitled("master_agent", "LIMITED: developer_agent") }
	waitUntil(t, 30*time.Second, "the overseer to be told", func() bool { return told() == 1 }, tm.diagnose)

	// More mail waits: no turn is started, nobody is told again.
	mark := u.API.Mark()
	waiting := tm.sendAs("reviewer_agent", agent, "And the tests")
	waitUntil(t, 30*time.Second, "the second message to be routed", func() bool {
		items, _ := tm.store.List(agent, mailbox.Unread)
		return len(items) >= 2
	}, tm.diagnose)
	if got := tm.channelOf(waiting, agent); got != "" {
		t.Errorf("the message to the limited agent was announced (%s)", got)
	}
	for _, r := range u.API.Since(mark) {
		if r.Contains(waiting) {
			t.Errorf("the limited client was handed the message")
		}
	}
	if n := told(); n != 1 {
		t.Errorf("the overseer was told %d times; want once", n)
	}
	if st := tm.state(agent); st.State != conversation.Limited {
		t.Errorf("state %+v; want still limited", st)
	}
	for _, line := range strings.Split(tm.must("agents"), "\n") {
		if strings.Contains(line, agent) && !strings.Contains(line, "limited") {
			t.Errorf("agents shows %q", line)
		}
	}
}
