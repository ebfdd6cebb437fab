package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"switchboard/mailbox"
	"switchboard/realclient"
)

// replyTool finds the name a client gives switchboard's reply tool in the
// tools it offers its model: mcp__switchboard__reply for Claude Code,
// mcp_switchboard_reply for Gemini CLI.
var replyTool = regexp.MustCompile(`"name":\s*"((?:mcp_+)?switchboard[_-]*reply)"`)

// replyNamespace finds Codex's: the server's tools in a namespace of the
// Responses API, mcp__switchboard, where the tool is reply.
var replyNamespace = regexp.MustCompile(`"type":\s*"namespace",\s*"name":\s*"(mcp__switchboard)"`)

// The real clients under up (offline, their models stand-ins) are offered
// switchboard's tools, and their models answer a message with the reply
// tool: the answer reaches the sender, with no permission prompt on the
// way.
func TestClaudeCodeAnswersThroughTheMCPTools(t *testing.T) { testMCPInTeam(t, realclient.ClaudeCode) }
func TestCodexAnswersThroughTheMCPTools(t *testing.T)      { testMCPInTeam(t, realclient.Codex) }
func TestGeminiAnswersThroughTheMCPTools(t *testing.T)     { testMCPInTeam(t, realclient.GeminiCLI) }

func testMCPInTeam(t *testing.T, c realclient.Client) {
	program := c.Install(t)
	tm := newTeam(t)
	u := c.NewUser(t, tm.root)
	tm.env = quickExit(u.Env)
	const agent = "developer_agent"
	command, _ := json.Marshal(append([]string{program}, c.Interactive[1:]...))
	writeTestFile(t, filepath.Join(tm.root, "agents", agent+".yaml"),
		fmt.Sprintf("display_name: Developer Agent\nkind: %s\ncommand: %s\n", c.Kind, command))

	var mu sync.Mutex
	replied := map[string]bool{}
	tool := ""
	u.API.Respond(func(r realclient.Request) realclient.Answer {
		mu.Lock()
		defer mu.Unlock()
		if m := replyTool.FindSubmatch(r.Body); m != nil {
			tool = string(m[1])
		} else if m := replyNamespace.FindSubmatch(r.Body); m != nil {
			tool = string(m[1]) + "__reply"
		}
		for _, m := range announcedID.FindAllStringSubmatch(r.Text, -1) {
			if id := m[1]; r.Tools && !r.AfterTool && !replied[id] && tool != "" {
				replied[id] = true
				return realclient.Answer{Tool: tool, Input: map[string]any{"id": id, "content": "Done through the tools"}}
			}
		}
		return realclient.TextReply(r)
	})

	tm.must("up", "-d", "--socket", tm.socket)
	waitUntil(t, time.Minute, agent+" to be idle after start", func() bool { return tm.state(agent).State == mailbox.StateIdle }, tm.diagnose)
	mark := u.API.Mark()
	id := tm.sendAs("reviewer_agent", agent, "Review the login change")
	waitUntil(t, time.Minute, "the model's reply through the tool to reach the reviewer", func() bool {
		return len(responsesTo(t, tm.store, "reviewer_agent", id)) == 1
	}, func() string { return tm.diagnose() + dumpRequests(u.API.Since(mark)) })
	got := responsesTo(t, tm.store, "reviewer_agent", id)[0]
	if got.Content != "Done through the tools" || got.From != agent {
		t.Errorf("the reviewer got %+v", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if tool == "" {
		t.Errorf("no request offered the model switchboard's reply tool:\n%s", dumpRequests(u.API.Since(mark)))
	}
	reqs := u.API.Since(mark)
	if last := reqs[len(reqs)-1].Text; !strings.Contains(last, "Tools (the switchboard MCP server") {
		t.Errorf("the identity card does not name the tools")
	}
}
