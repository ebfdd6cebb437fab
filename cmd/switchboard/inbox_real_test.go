package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"switchboard/conversation"
	"switchboard/internal/clientinbox"
	"switchboard/internal/testkit/realclient"
	"switchboard/internal/watch"
	"switchboard/mailbox"
)

// The tests of Claude Code's own inbox: mail reaches a working agent at its
// next tool boundary with nothing typed, an agent whose inbox is gone is
// typed at as before, and the client's own channel between sessions
// obeys the team's rules.

// logged is the team's log, as log --json gives it (args narrow it).
func (tm *team) logged(args ...string) []logEntry {
	tm.t.Helper()
	var entries []logEntry
	if err := json.Unmarshal([]byte(tm.must(append([]string{"log", "--json"}, args...)...)), &entries); err != nil {
		tm.t.Fatal(err)
	}
	return entries
}

// channelOf is how the message id was announced to agent: "" when it was
// not (yet).
func (tm *team) channelOf(id, agent string) string {
	for _, e := range tm.logged("--agent", agent) {
		if e.ID != id {
			continue
		}
		for _, a := range e.Announced {
			if a.To == agent {
				return a.Channel
			}
		}
	}
	return ""
}

// session is the live session the agent's client recorded at its start,
// once the client lists it (a moment after its start-up hook ran).
func (tm *team) session(agent string) (rec clientinbox.Record, s clientinbox.Session) {
	tm.t.Helper()
	var err error
	waitUntil(tm.t, 30*time.Second, agent+"'s session in its client's registry", func() bool {
		var ok bool
		if rec, ok, err = clientinbox.ReadRecord(conversation.Of(tm.store).ClientRecordPath(agent)); !ok {
			return false
		}
		s, err = rec.Session()
		return err == nil
	}, func() string { return fmt.Sprintf("last: %v\n%s", err, tm.diagnose()) })
	return rec, s
}

// A working agent gets its mail at its next tool boundary, through its
// client's inbox: a turn of five tool calls, mail sent during the first,
// the mail in the request right after it, the turn not cut short, and
// nothing typed into its pane.
func TestClaudeCodeHearsMailAtItsNextToolBoundary(t *testing.T) {
	t.Parallel() // as testHeadless
	tm, u := clientInTeam(t, realclient.ClaudeCode, "developer_agent", "Developer Agent", "")
	const agent = "developer_agent"
	const calls = 5
	var mu sync.Mutex
	turn := 0 // tool calls made in the turn
	u.API.Respond(func(r realclient.Request) realclient.Answer {
		mu.Lock()
		defer mu.Unlock()
		if !r.Tools || (turn == 0 && !r.Contains("Start the build")) || turn == calls {
			return realclient.TextReply(r)
		}
		turn++
		return realclient.Answer{Command: "switchboard status --format line"}
	})
	tm.upIdle(agent)
	rec, _ := tm.session(agent)
	transcript := clientinbox.Transcript{Path: rec.Transcript}

	// Before the model answers the turn's first request with its first
	// tool call, mail comes, and the client has taken it into its queue.
	var urgentID string
	u.API.BeforeNextAnswer(func() error {
		from := transcript.End()
		var err error
		if urgentID, err = send("switchboard", tm.root, "master_agent", agent, "Stop: the tests fail on main"); err != nil {
			return err
		}
		if !watch.Until(context.Background(), 20*time.Millisecond, 30*time.Second, func() bool { return queued(rec.Transcript, from, urgentID) }) {
			return fmt.Errorf("the client never queued message %s", urgentID)
		}
		return nil
	})
	mark := u.API.Mark()
	tm.sendAs("reviewer_agent", agent, "Start the build")
	waitUntil(t, time.Minute, "the turn's five tool calls", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return turn == calls && tm.state(agent).State == conversation.Idle
	}, func() string { return tm.diagnose() + dumpRequests(u.API.Since(mark)) })

	reqs := u.API.Since(mark)
	first := -1 // the request of the turn that first holds the mail
	afterTools := 0
	for _, r := range reqs {
		if r.AfterTool {
			afterTools++
		}
		if r.Contains(urgentID) {
			first = afterTools
			break
		}
	}
	if first != 1 {
		t.Errorf("the mail reached the model after %d tool calls of the turn; want right after the first\n%s", first, dumpRequests(reqs))
	}
	if n := listings(reqs[len(reqs)-1].Text, urgentID); n != 1 {
		t.Errorf("the mail is in the conversation %d times; want once\n%s", n, dumpRequests(reqs))
	}
	waitUntil(t, 30*time.Second, "the log to say the mail went through the client's inbox", func() bool {
		return tm.channelOf(urgentID, agent) == conversation.ChannelInbox
	}, tm.diagnose)
	if screen := tm.diagnose(); strings.Contains(screen, "[FROM: Master Agent]") {
		t.Errorf("the notice was typed into the pane:\n%s", screen)
	}
}

// queued reports whether the transcript, after from, says the client took
// the message id into its queue.
func queued(path string, from int64, id string) bool {
	data, err := os.ReadFile(path)
	if err != nil || int64(len(data)) < from {
		return false
	}
	for _, line := range strings.Split(string(data[from:]), "\n") {
		if strings.Contains(line, `"queue-operation"`) && strings.Contains(line, id) {
			return true
		}
	}
	return false
}

// An agent whose client's inbox is gone (its socket removed, as by a
// cleaner of /tmp) gets its notice typed, and answers it, once.
func TestClaudeCodeWithoutItsInboxIsTypedAt(t *testing.T) {
	t.Parallel() // as testHeadless
	tm, u := clientInTeam(t, realclient.ClaudeCode, "developer_agent", "Developer Agent", "")
	const agent = "developer_agent"
	u.API.Respond(replyToEachAnnounced("Done without the inbox"))
	tm.upIdle(agent)
	_, s := tm.session(agent)
	if err := os.Remove(s.Socket); err != nil {
		t.Fatal(err)
	}
	mark := u.API.Mark()
	id := tm.sendAs("reviewer_agent", agent, "Review the login change")
	waitUntil(t, time.Minute, "the model's reply", func() bool {
		return len(responsesTo(t, tm.store, "reviewer_agent", id)) == 1
	}, func() string { return tm.diagnose() + dumpRequests(u.API.Since(mark)) })
	waitUntil(t, 30*time.Second, "the log to say the notice was typed", func() bool {
		return tm.channelOf(id, agent) == conversation.ChannelTyped
	}, tm.diagnose)
	reqs := u.API.Since(mark)
	if n := listings(reqs[len(reqs)-1].Text, id); n != 1 {
		t.Errorf("the message is in the conversation %d times; want once\n%s", n, dumpRequests(reqs))
	}
}

// Claude Code's own tools between sessions do not get past the rules: the
// tester's model, asked to tell the reviewer (which the rules forbid),
// looks for its session with ListAgents (denied) and writes to it with
// SendMessage, by the agent's name and by the session's own address.
// Nothing reaches the reviewer's conversation or inbox, and the attempts
// are in the log as blocked or reported to the overseers.
func TestClaudeCodesOwnMessagesObeyTheRules(t *testing.T) {
	t.Parallel() // as testHeadless
	tm, u := clientInTeam(t, realclient.ClaudeCode, "tester_agent", "Tester Agent", "")
	program := realclient.ClaudeCode.Install(t)
	writeTestFile(t, tm.root+"/agents/reviewer_agent.yaml", fmt.Sprintf("display_name: Reviewer Agent\nkind: claude\ncommand: [%q]\n", program))
	const marker = "PSST-the-release-is-broken"
	tm.must("up", "-d", "--no-console", "--socket", tm.socket)
	waitUntil(t, time.Minute, "both clients to be idle after start", func() bool {
		return tm.state("tester_agent").State == conversation.Idle && tm.state("reviewer_agent").State == conversation.Idle
	}, tm.diagnose)
	reviewerRec, reviewer := tm.session("reviewer_agent")

	var mu sync.Mutex
	var steps []realclient.Answer
	var outputs []string
	u.API.Respond(func(r realclient.Request) realclient.Answer {
		mu.Lock()
		defer mu.Unlock()
		if r.AfterTool {
			outputs = append(outputs, r.ToolOutput)
		}
		if steps == nil && r.Tools && r.Contains("Tell the reviewer") {
			steps = []realclient.Answer{
				{Tool: realclient.ToolSearch, Input: map[string]any{"query": "select:SendMessage,ListAgents", "max_results": 2}},
				{Tool: "ListAgents", Input: map[string]any{}},
				{Tool: "SendMessage", Input: map[string]any{"to": "reviewer_agent", "summary": marker, "message": marker + " by name"}},
				{Tool: "SendMessage", Input: map[string]any{"to": "uds:" + reviewer.Socket, "summary": marker, "message": marker + " by address"}},
			}
		}
		if len(steps) > 0 && r.Tools {
			next := steps[0]
			steps = steps[1:]
			return next
		}
		return realclient.TextReply(r)
	})
	mark := u.API.Mark()
	tm.sendAs("master_agent", "tester_agent", "Tell the reviewer the release is broken")
	waitUntil(t, time.Minute, "the model's four tool calls to come back", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(outputs) >= 4
	}, func() string { return tm.diagnose() + dumpRequests(u.API.Since(mark)) })

	// Mail the reviewer may get comes after the attempts: once it is in
	// the reviewer's conversation, whatever they sent would be too.
	control := tm.sendAs("master_agent", "reviewer_agent", "Carry on with the review")
	waitUntil(t, time.Minute, "the master agent's message in the reviewer's conversation", func() bool {
		held, _ := clientinbox.Transcript{Path: reviewerRec.Transcript}.Holds(0, []string{control})
		return held
	}, tm.diagnose)
	if transcript, _ := os.ReadFile(reviewerRec.Transcript); strings.Contains(string(transcript), marker) {
		t.Errorf("the tester's message reached the reviewer's conversation")
	}
	// The blocked attempt is in the log, the other reported to the
	// overseers; the reviewer has none of it.
	waitUntil(t, 30*time.Second, "the blocked message and the report in the log", func() bool {
		var blocked, reported bool
		for _, e := range tm.logged("--agent", "tester_agent") {
			blocked = blocked || (e.Status == mailbox.StatusBlocked && e.Title == marker && len(e.To) == 1 && e.To[0] == "reviewer_agent")
			reported = reported || (strings.HasPrefix(e.Title, "REFUSED: tester_agent tried to write to") && strings.Contains(e.Title, reviewer.Socket[:10]))
		}
		return blocked && reported
	}, func() string { return tm.must("log") })
	mu.Lock()
	got := outputs
	mu.Unlock()
	if !strings.Contains(got[1], "ListAgents") {
		t.Errorf("ListAgents answered %q; want it refused", got[1])
	}
	if !strings.Contains(got[2], "BLOCKED") || !strings.Contains(got[3], "Not sent") {
		t.Errorf("SendMessage answered %q and %q; want both refused", got[2], got[3])
	}
	items, err := tm.store.List("reviewer_agent", mailbox.All)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if m, err := tm.store.LoadUnread("reviewer_agent", it.Name); err == nil && strings.Contains(m.Title+m.Content, marker) {
			t.Errorf("the reviewer's inbox holds %q", m.Title)
		}
	}
}
