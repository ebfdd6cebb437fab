package main

import (
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"switchboard/conversation"
	"switchboard/desk"
	"switchboard/internal/testkit/realclient"
	"switchboard/workspace"
)

// replyTool finds the name a client gives switchboard's reply tool in the
// tools it offers its model: mcp__switchboard__reply for Claude Code,
// mcp_switchboard_reply for Gemini CLI.
var replyTool = regexp.MustCompile(`"name":\s*"((?:mcp_+)?switchboard[_-]*reply)"`)

// replyNamespace finds Codex's: the server's tools in a namespace of the
// Responses API, mcp__switchboard, where the tool is reply.
var replyNamespace = regexp.MustCompile(`"type":\s*"namespace",\s*"name":\s*"(mcp__switchboard)"`)

// claudeMCPPrefix is how Claude Code names the server's tools. Claude Code
// 2.1.328 defers them: they are not in the request's list until its
// ToolSearch loads them, and a turn started through its inbox does not
// even name them; the identity card says they are there.
const claudeMCPPrefix = "mcp__switchboard__"

// The real clients under up (offline, their models stand-ins) are offered
// switchboard's tools, and their models read a message with the read tool,
// write to the master agent with send and answer with reply: each reaches
// its recipient, with no permission prompt on the way.
func TestClaudeCodeAnswersThroughTheMCPTools(t *testing.T) { testMCPInTeam(t, realclient.ClaudeCode) }
func TestCodexAnswersThroughTheMCPTools(t *testing.T)      { testMCPInTeam(t, realclient.Codex) }
func TestGeminiAnswersThroughTheMCPTools(t *testing.T)     { testMCPInTeam(t, realclient.GeminiCLI) }

func testMCPInTeam(t *testing.T, c realclient.Client) {
	t.Parallel() // as testHeadless
	tm, u := clientInTeam(t, c, "developer_agent", "Developer Agent", "")
	const agent = "developer_agent"

	// The model reads the message with the read tool, tells the master
	// agent with send that it is on it, and answers with reply: one tool
	// call a turn, each after the last one's result.
	var mu sync.Mutex
	var steps []realclient.Answer
	reply := ""
	u.API.Respond(func(r realclient.Request) realclient.Answer {
		mu.Lock()
		defer mu.Unlock()
		if m := replyTool.FindSubmatch(r.Body); m != nil {
			reply = string(m[1])
		} else if m := replyNamespace.FindSubmatch(r.Body); m != nil {
			reply = string(m[1]) + "__reply"
		} else if r.Offers(realclient.ToolSearch) && r.Contains("Tools (the switchboard MCP server)") {
			reply = claudeMCPPrefix + "reply"
		}
		named := func(tool string) string { return strings.TrimSuffix(reply, "reply") + tool }
		if reply != "" && steps == nil && r.Tools && !r.AfterTool {
			if m := announcedID.FindStringSubmatch(r.Text); m != nil {
				steps = []realclient.Answer{
					{Tool: named("read"), Input: map[string]any{"id": m[1]}},
					{Tool: named("send"), Input: map[string]any{"to": []string{"master_agent"}, "title": "On the login review"}},
					{Tool: named("reply"), Input: map[string]any{"id": m[1], "content": "Done through the tools"}},
				}
				if load, ok := r.Load(named("read"), named("send"), named("reply")); ok {
					steps = append([]realclient.Answer{load}, steps...)
				}
			}
		}
		if len(steps) > 0 && r.Tools {
			next := steps[0]
			steps = steps[1:]
			return next
		}
		return realclient.TextReply(r)
	})

	tm.must("up", "-d", "--no-console", "--socket", tm.socket)
	waitUntil(t, time.Minute, agent+" to be idle after start", func() bool { return tm.state(agent).State == conversation.Idle }, tm.diagnose)
	mark := u.API.Mark()
	id := tm.sendAs("reviewer_agent", agent, "Review the login change")
	waitUntil(t, time.Minute, "the model's reply through the tool to reach the reviewer", func() bool {
		return len(responsesTo(t, tm.store, "reviewer_agent", id)) == 1
	}, func() string { return tm.diagnose() + dumpRequests(u.API.Since(mark)) })
	got := responsesTo(t, tm.store, "reviewer_agent", id)[0]
	if got.Content != "Done through the tools" || got.From != agent {
		t.Errorf("the reviewer got %+v", got)
	}
	waitUntil(t, time.Minute, "the model's note to reach the master agent", func() bool {
		items, _, _ := desk.New(workspace.New(tm.root), nil, "master_agent").Inbox(false)
		return len(items) == 1 && items[0].Title == "On the login review" && items[0].From == agent
	}, tm.diagnose)
	mu.Lock()
	defer mu.Unlock()
	reqs := u.API.Since(mark)
	var read bool
	for _, r := range reqs {
		read = read || (r.AfterTool && strings.Contains(r.ToolOutput, "Review the login change"))
	}
	if !read {
		t.Errorf("the read tool's result never reached the model:\n%s", dumpRequests(reqs))
	}
	if last := reqs[len(reqs)-1].Text; !strings.Contains(last, "Tools (the switchboard MCP server") {
		t.Errorf("the identity card does not name the tools")
	}
}
