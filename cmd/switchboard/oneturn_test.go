package main

import (
	"crypto/rand"
	"encoding/hex"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"switchboard/mailbox"
	"switchboard/realclient"
)

func TestClaudeCodeActsOnABodyInOneRequest(t *testing.T) { testOneRequest(t, realclient.ClaudeCode) }
func TestCodexActsOnABodyInOneRequest(t *testing.T)      { testOneRequest(t, realclient.Codex) }
func TestGeminiActsOnABodyInOneRequest(t *testing.T)     { testOneRequest(t, realclient.GeminiCLI) }

// bodyCommand is a command a message's body asks for, and only its body:
// the notice names the message by its title alone.
var bodyCommand = regexp.MustCompile(`BODYCMD: (switchboard send --to reviewer_agent --title acted-[0-9a-f]+)`)

// testOneRequest: a message to an idle agent, whose body asks for a
// command; the stand-in model acts on what it is given and on nothing
// else. The agent runs the command in the first model request its notice
// starts: the body came with the notice.
func testOneRequest(t *testing.T, c realclient.Client) {
	t.Parallel() // as testHeadless
	tm, u := clientInTeam(t, c, "developer_agent", "Developer Agent", "")
	const agent = "developer_agent"
	var mu sync.Mutex
	acted := map[string]int{} // the request, by number, that asked for each command
	u.API.Respond(func(r realclient.Request) realclient.Answer {
		mu.Lock()
		defer mu.Unlock()
		for _, m := range bodyCommand.FindAllStringSubmatch(r.Text, -1) {
			if r.Tools && !r.AfterTool && acted[m[1]] == 0 {
				acted[m[1]] = r.N
				return realclient.Answer{Command: m[1]}
			}
		}
		return realclient.TextReply(r)
	})
	tm.must("up", "-d", "--socket", tm.socket)
	waitUntil(t, time.Minute, agent+" to be idle after start", func() bool { return tm.state(agent).State == mailbox.StateIdle }, tm.diagnose)

	marker := make([]byte, 6)
	rand.Read(marker)
	command := "switchboard send --to reviewer_agent --title acted-" + hex.EncodeToString(marker)
	mark := u.API.Mark()
	if _, err := sendWith("switchboard", tm.root, "reviewer_agent", agent, "A small favour", "Please do this for me. BODYCMD: "+command); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, time.Minute, "the command the body asked for", func() bool {
		entries, _ := tm.store.List("reviewer_agent", mailbox.All)
		for _, e := range entries {
			if m, err := mailbox.Load(e.Path); err == nil && m.From == agent && strings.HasPrefix(m.Title, "acted-") {
				return true
			}
		}
		return false
	}, func() string { return tm.diagnose() + dumpRequests(u.API.Since(mark)) })

	// The model's requests since the message: those that could act (tools
	// offered, no tool's result carried back), up to the one that did.
	mu.Lock()
	at := acted[command]
	mu.Unlock()
	asked := 0
	for _, r := range u.API.Since(mark) {
		if r.N <= at && r.Tools && !r.AfterTool {
			asked++
		}
	}
	if asked != 1 {
		t.Errorf("the model acted on the body in request %d, the %d-th since the message; want the first\n%s", at, asked, dumpRequests(u.API.Since(mark)))
	}
}
