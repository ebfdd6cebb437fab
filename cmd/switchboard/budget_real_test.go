package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"switchboard/desk"
	"switchboard/internal/testkit/realclient"
)

// An agent whose client spends more in a day than its profile's budget
// allows is over budget once its turn ends: agents says so, the overseers
// are told once, and its mail is held; a budget raised in its profile
// lets the mail go.
func TestClaudeCodeOverItsBudgetIsHeld(t *testing.T) {
	t.Parallel() // as testHeadless
	tm, u := clientInTeam(t, realclient.ClaudeCode, "developer_agent", "Developer Agent", "budget: {tokens_per_day: 500}\n")
	const agent = "developer_agent"
	u.API.Respond(replyToEachAnnounced("Done"))
	tm.upIdle(agent)
	tm.answered(u.API, agent, "Review the login change") // charged over 1,000 tokens

	state := func() string {
		var members []desk.Member
		if err := json.Unmarshal([]byte(tm.must("agents", "--json")), &members); err != nil {
			t.Fatal(err)
		}
		for _, m := range members {
			if m.Name == agent {
				return m.State
			}
		}
		return ""
	}
	waitUntil(t, 30*time.Second, agent+" to be over budget", func() bool { return state() == desk.StateOverBudget }, tm.diagnose)
	told := func() int { return tm.unreadTitled("master_agent", "OVER BUDGET: developer_agent") }
	waitUntil(t, 30*time.Second, "the overseer to be told", func() bool { return told() == 1 }, tm.diagnose)

	held := tm.sendAs("reviewer_agent", agent, "And the tests")
	if got := tm.channelOf(held, agent); got != "" {
		t.Errorf("the message to the agent over budget was announced (%s) before its budget was raised", got)
	}
	// Raised in its profile: the mail goes, and is answered.
	profile := filepath.Join(tm.root, "agents", agent+".yaml")
	command := fmt.Sprintf("%q", realclient.ClaudeCode.Install(t))
	writeTestFile(t, profile, "display_name: Developer Agent\nkind: claude\ncommand: ["+command+"]\nbudget: {tokens_per_day: 100000000}\n")
	tm.sendAs("master_agent", agent, "Budget raised") // the master looks again
	waitUntil(t, time.Minute, "the held message to be answered", func() bool {
		return len(responsesTo(t, tm.store, "reviewer_agent", held)) == 1
	}, tm.diagnose)
	if n := told(); n != 1 {
		t.Errorf("the overseer was told %d times; want once", n)
	}
}
