package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"switchboard/conversation"
	"switchboard/internal/testkit/realclient"
	"switchboard/mailbox"
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
	tm.must("up", "-d", "--no-console", "--socket", tm.socket)
	waitUntil(t, time.Minute, agent+" to be idle after start", func() bool { return tm.state(agent).State == conversation.Idle }, tm.diagnose)

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

// BenchmarkSendToModelRequest is the time from `switchboard send` to the
// model request that carries the message's body, for a real client idle
// under up, against its stand-in model; compare with
// BenchmarkTeamNoticeLatency, the notice typed into a program that reads
// its input. Claude Code is measured three ways in the same run: through
// its own inbox (as up runs it), typed (its inbox's socket removed), and
// the client's own floor, a write on its socket straight from the test.
//
//	go test -run '^$' -bench SendToModelRequest -benchtime 20x ./cmd/switchboard
func BenchmarkSendToModelRequest(b *testing.B) {
	viaSend := func(tm *team, agent string, i int, body string) error {
		_, err := sendWith("switchboard", tm.root, "reviewer_agent", agent, fmt.Sprintf("Note %d", i), body)
		return err
	}
	for _, way := range []struct {
		name   string
		client realclient.Client
		prep   func(b *testing.B, tm *team, agent string)
		send   func(tm *team, agent string, i int, body string) error
	}{
		{name: "Claude Code inbox", client: realclient.ClaudeCode, send: viaSend},
		{name: "Claude Code typed", client: realclient.ClaudeCode, send: viaSend, prep: func(b *testing.B, tm *team, agent string) {
			if _, s := tm.session(agent); os.Remove(s.Socket) != nil {
				b.Fatal("cannot remove the inbox's socket")
			}
		}},
		{name: "Claude Code socket floor", client: realclient.ClaudeCode, send: func(tm *team, agent string, i int, body string) error {
			_, s := tm.session(agent)
			return s.Send(context.Background(), "", body)
		}},
		{name: realclient.Codex.Name, client: realclient.Codex, send: viaSend},
		{name: realclient.GeminiCLI.Name, client: realclient.GeminiCLI, send: viaSend},
	} {
		b.Run(way.name, func(b *testing.B) {
			tm, u := clientInTeam(b, way.client, "developer_agent", "Developer Agent", "")
			const agent = "developer_agent"
			u.API.Respond(realclient.TextReply)
			tm.must("up", "-d", "--no-console", "--socket", tm.socket)
			waitUntil(b, time.Minute, agent+" to be idle after start", func() bool { return tm.state(agent).State == conversation.Idle }, tm.diagnose)
			if way.prep != nil {
				way.prep(b, tm, agent)
			}
			var times []time.Duration
			var settled time.Time // the last message was sent then: its turn ends after
			b.ResetTimer()
			for i := range b.N {
				waitUntil(b, time.Minute, agent+" to be idle again", func() bool {
					st := tm.state(agent)
					return st.State == conversation.Idle && st.Since.After(settled)
				}, tm.diagnose)
				body := fmt.Sprintf("BODY-%d-%d", i, time.Now().UnixNano())
				mark := u.API.Mark()
				start := time.Now()
				if err := way.send(tm, agent, i, body); err != nil {
					b.Fatal(err)
				}
				waitUntil(b, time.Minute, "the request carrying the body", func() bool {
					for _, r := range u.API.Since(mark) {
						if strings.Contains(r.Text, body) {
							return true
						}
					}
					return false
				}, func() string { return tm.diagnose() + dumpRequests(u.API.Since(mark)) })
				times = append(times, time.Since(start))
				settled = start
			}
			b.StopTimer()
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms-p50")
			b.ReportMetric(float64(times[len(times)-1].Microseconds())/1000, "ms-max")
		})
	}
}
