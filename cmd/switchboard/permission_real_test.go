package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"switchboard/internal/testkit/realclient"
	"switchboard/mailbox"
)

// The permission bridge with the real clients, in their TUI in tmux, the
// only place they run the permission hook: a helper spawned by the
// developer (a shell, answered here as the developer would) is told by its
// stand-in model to run commands its client asks about, and its parent's
// answers decide: allow runs one, deny does not and the model hears why,
// always runs one and the next it covers without asking, and no answer in
// the helper's approval_timeout is deny.
func TestClaudeCodePermissionsGoToTheParent(t *testing.T) {
	testPermissionBridge(t, realclient.ClaudeCode, func(mark func(string) string) []bridgeStep {
		made := func(name string) func() bool { return func() bool { return exists(mark(name)) } }
		// Claude Code asks about writes outside its own rules; for git init
		// it offers to remember "git init *", which always then covers.
		return []bridgeStep{
			{command: "touch " + mark("allow"), answer: "allow", ran: made("allow")},
			{command: "touch " + mark("deny"), answer: "deny", ran: made("deny")},
			{command: "git init -q " + mark("always-1"), answer: "always", ran: made("always-1")},
			{command: "git init -q " + mark("always-2"), ran: made("always-2"), covered: true},
			{command: "rm -rf " + mark("timeout"), ran: func() bool { return false }},
		}
	})
}

// Codex runs most commands in its sandbox unasked, and asks about rm -rf;
// it offers no rule to remember, so always covers the same command.
func TestCodexPermissionsGoToTheParent(t *testing.T) {
	testPermissionBridge(t, realclient.Codex, func(mark func(string) string) []bridgeStep {
		gone := func(name string) func() bool {
			if err := os.MkdirAll(mark(name), 0o700); err != nil {
				t.Fatal(err)
			}
			return func() bool { return !exists(mark(name)) }
		}
		always := gone("always")
		return []bridgeStep{
			{command: "rm -rf " + mark("allow"), answer: "allow", ran: gone("allow")},
			{command: "rm -rf " + mark("deny"), answer: "deny", ran: gone("deny")},
			{command: "rm -rf " + mark("always"), answer: "always", ran: always},
			{command: "rm -rf " + mark("always"), ran: always, covered: true},
			{command: "rm -rf " + mark("timeout"), ran: gone("timeout")},
		}
	})
}

// bridgeStep is one command the stand-in model runs, and what the test
// answers to its permission request: "" for none (a call an always
// covers, or no answer at all).
type bridgeStep struct {
	command string
	answer  string
	ran     func() bool // whether its effect is there
	covered bool        // an always answered it, with no request
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

func testPermissionBridge(t *testing.T, c realclient.Client, stepsFor func(mark func(string) string) []bridgeStep) {
	t.Parallel() // as testHeadless
	tm, u := clientInTeam(t, c, "helper", "Helper", "approval_timeout: 8s\n")
	writeTestFile(t, filepath.Join(tm.root, "agents", "developer_agent.yaml"), "display_name: Developer Agent\nkind: shell\ncommand: [bash]\n")
	steps := stepsFor(func(name string) string { return filepath.Join(tm.root, "ran-"+name) })

	// The model runs one command after another, each once the last ran or
	// was refused; then it is done.
	var mu sync.Mutex
	next := 0
	var outputs []string
	u.API.Respond(func(r realclient.Request) realclient.Answer {
		mu.Lock()
		defer mu.Unlock()
		if r.AfterTool {
			outputs = append(outputs, r.ToolOutput)
		}
		if !r.Tools || (!r.AfterTool && next > 0) || next == len(steps) {
			return realclient.TextReply(r)
		}
		next++
		return realclient.Answer{Command: steps[next-1].command}
	})
	output := func(i int) func() bool {
		return func() bool { mu.Lock(); defer mu.Unlock(); return len(outputs) > i }
	}
	explain := func() string {
		mu.Lock()
		defer mu.Unlock()
		return tm.diagnose() + fmt.Sprintf("\ntool outputs: %q", outputs)
	}

	tm.must("up", "-d", "--no-console", "--socket", tm.socket)
	tm.waitIdle("developer_agent")
	tm.must("spawn", "--as", "developer_agent", "--profile", "helper", "--name", "h1", "--task", "Build the release")

	for i, s := range steps {
		title := "[PERMISSION] h1 wants to run Bash: " + s.command
		if s.answer != "" {
			id := tm.waitUnreadFor(time.Minute, "developer_agent", title)
			args := []string{"reply", id, "--option", s.answer, "--as", "developer_agent"}
			if s.answer == "deny" {
				args = append(args, "--content", "not before the release")
			}
			tm.must(args...)
		}
		waitUntil(t, time.Minute, fmt.Sprintf("step %d (%s) to come back to the model", i+1, s.command), output(i), explain)
		mu.Lock()
		out := outputs[i]
		mu.Unlock()
		switch {
		case s.answer == "deny":
			if s.ran() || !strings.Contains(out, "developer_agent denied this: not before the release") {
				t.Errorf("step %d, denied: ran %v, and the model was told %q", i+1, s.ran(), out)
			}
		case s.answer == "" && !s.covered:
			if s.ran() || !strings.Contains(out, "developer_agent did not answer within 8s") {
				t.Errorf("step %d, unanswered: ran %v, and the model was told %q", i+1, s.ran(), out)
			}
		default:
			waitUntil(t, 10*time.Second, fmt.Sprintf("step %d (%s) to have run", i+1, s.command), s.ran, explain)
		}
		if s.covered {
			asked := 0
			for _, e := range mustList(t, tm.store, "developer_agent") {
				if m, _ := mailbox.Load(e.Path); m != nil && m.Title == title {
					asked++
				}
			}
			if asked > 1 || (asked == 1 && steps[i-1].command != s.command) {
				t.Errorf("step %d, which an always covers, was asked again", i+1)
			}
		}
	}
	if log := tm.must("log"); !strings.Contains(strings.Join(strings.Fields(log), " "), "h1 → developer_agent [PERMISSION] no answer within 8s") {
		t.Errorf("the log does not show the refusal for want of an answer:\n%s", log)
	}
}

// waitUnreadFor is waitUnread with a deadline of its own.
func (tm *team) waitUnreadFor(d time.Duration, agent, title string) string {
	tm.t.Helper()
	var id string
	waitUntil(tm.t.(*testing.T), d, title+" in the inbox of "+agent, func() bool {
		entries, _ := tm.store.List(agent, mailbox.Unread)
		for _, e := range entries {
			if m, err := mailbox.Load(e.Path); err == nil && m.Title == title {
				id = m.ID
				return true
			}
		}
		return false
	}, tm.diagnose)
	return id
}
