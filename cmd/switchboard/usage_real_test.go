package main

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"switchboard/desk"
	"switchboard/internal/testkit/realclient"
)

// switchboard usage shows, token for token, what the stand-in model
// charged the client for the answers in its conversation.
func TestUsageIsWhatTheModelCharged(t *testing.T)       { testUsage(t, realclient.ClaudeCode) }
func TestCodexUsageIsWhatTheModelCharged(t *testing.T)  { testUsage(t, realclient.Codex) }
func TestGeminiUsageIsWhatTheModelCharged(t *testing.T) { testUsage(t, realclient.GeminiCLI) }

func testUsage(t *testing.T, c realclient.Client) {
	t.Parallel() // as testHeadless
	tm, u := clientInTeam(t, c, "developer_agent", "Developer Agent", "")
	const agent = "developer_agent"
	u.API.Respond(replyToEachAnnounced("Done"))
	tm.upIdle(agent)
	tm.answered(u.API, agent, "Review the login change")
	usageIsCharged(t, tm, u, c, agent)
}

// usageIsCharged checks that usage, agents --json and top --once --json
// say the agent spent, token for token, what the stand-in charged for its
// conversation's requests so far.
func usageIsCharged(t *testing.T, tm *team, u realclient.User, c realclient.Client, agent string) {
	t.Helper()
	var want [4]int64 // in, out, cache read, cache write: the conversation's requests
	for _, r := range u.API.Since(0) {
		if !r.Tools {
			continue // the client's side requests (a title) are not the conversation's
		}
		in, out := realclient.Charge(r.N)
		if c.Kind != realclient.ClaudeCode.Kind {
			// The Responses API and Gemini's count the cache read among the
			// input, and write no cache.
			want[0] += int64(in - 2*r.N)
			want[1] += int64(out)
			want[2] += int64(2 * r.N)
			continue
		}
		want[0] += int64(in)
		want[1] += int64(out)
		want[2] += int64(2 * r.N)
		want[3] += int64(r.N)
	}
	// The client writes its last answer to its transcript a moment after
	// its turn ends.
	var got [4]int64
	waitUntil(t, 30*time.Second, "usage to be what the stand-in charged", func() bool {
		var rows []desk.AgentUsage
		if err := json.Unmarshal([]byte(tm.must("usage", "--json", "--since", "all")), &rows); err != nil {
			t.Fatal(err)
		}
		for _, row := range rows {
			if row.Agent == agent {
				got = [4]int64{row.Tokens.In, row.Tokens.Out, row.Tokens.CacheRead, row.Tokens.CacheWrite}
			}
		}
		return got == want
	}, func() string {
		return fmt.Sprintf("usage of %s = %v; the stand-in charged %v\n%s", agent, got, want, dumpRequests(u.API.Since(0)))
	})
	// agents --json says what it spent today too.
	var rows []agentRow
	if err := json.Unmarshal([]byte(tm.must("agents", "--json")), &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Name == agent && (r.Today == nil || [4]int64{r.Today.Tokens.In, r.Today.Tokens.Out, r.Today.Tokens.CacheRead, r.Today.Tokens.CacheWrite} != want) {
			t.Errorf("agents --json says %s spent %+v today; want %v", agent, r.Today, want)
		}
	}
	// The console and the web view show it beside the agent.
	var top desk.Snapshot
	if err := json.Unmarshal([]byte(tm.must("top", "--once", "--json")), &top); err != nil {
		t.Fatal(err)
	}
	for _, a := range top.Agents {
		if a.Name == agent && (a.Today == nil || [4]int64{a.Today.Tokens.In, a.Today.Tokens.Out, a.Today.Tokens.CacheRead, a.Today.Tokens.CacheWrite} != want) {
			t.Errorf("top says %s spent %+v today; want %v", agent, a.Today, want)
		}
	}
}
