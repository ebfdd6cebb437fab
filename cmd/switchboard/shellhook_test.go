package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"switchboard/conversation"
)

// TestBashAgentPrompt runs a person's bash as an agent in a real tmux pane,
// wired by up: the user's own .bashrc still counts, the prompt shows the
// status box and new mail once, and the agent's state follows the commands
// the person runs.
func TestBashAgentPrompt(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	tm := newTeam(t)
	home := t.TempDir()
	// The user's .bashrc puts another install of switchboard first.
	other := filepath.Join(home, "other-bin")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(other, "switchboard"), "#!/bin/sh\necho another build\n")
	if err := os.Chmod(filepath.Join(other, "switchboard"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(home, ".bashrc"), "PS1='user-prompt\\$ '\nPATH="+other+":$PATH\n")
	writeTestFile(t, filepath.Join(tm.root, "agents", "developer_agent.yaml"),
		"display_name: Developer Agent\nkind: shell\ncommand: [bash]\nenv: {HOME: \""+home+"\", LANG: C.UTF-8}\n")
	tm.must("up", "-d", "--no-console", "--socket", tm.socket)
	pane := paneOf(t, tm, "developer_agent")
	screen := func() string {
		out, _ := exec.Command("tmux", "-L", tm.socket, "capture-pane", "-p", "-J", "-S", "-200", "-t", pane).CombinedOutput()
		return string(out)
	}
	keys := func(keys ...string) {
		t.Helper()
		args := append([]string{"-L", tm.socket, "send-keys", "-t", pane}, keys...)
		if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
			t.Fatalf("send-keys: %v: %s", err, out)
		}
	}
	// showing waits for the pane to show what cond looks for, and shows the
	// pane when it never does.
	showing := func(what string, cond func(string) bool) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for !cond(screen()) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s; the pane shows:\n%s", what, screen())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	hooked := func(state string) func() bool {
		return func() bool {
			st := tm.state("developer_agent")
			return st.State == state && st.Source == conversation.SourceHook
		}
	}

	showing("the box and the user's own prompt", func(s string) bool {
		return strings.Contains(s, "╔") && strings.Contains(s, "📬 Mailbox: 0 new") && strings.Contains(s, "user-prompt")
	})
	tm.waitFor("the prompt hook to mark the agent idle", hooked(conversation.Idle))

	// A command that runs makes the agent busy; its end, idle again.
	keys("sleep 30", "Enter")
	tm.waitFor("the agent to be busy while sleep runs", hooked(conversation.Busy))
	// Ctrl-C for sleep, not for the hook that marked the agent busy and
	// may not have ended yet: bash runs the command after a hook cut short.
	tm.waitFor("sleep in the foreground", func() bool {
		out, _ := exec.Command("tmux", "-L", tm.socket, "display-message", "-p", "-t", pane, "#{pane_current_command}").Output()
		return strings.TrimSpace(string(out)) == "sleep"
	})
	keys("C-c")
	tm.waitFor("the agent to be idle at the next prompt", hooked(conversation.Idle))

	// New mail shows at the next prompt, with its title, once.
	title := "Please review the login fix"
	id := tm.must("send", "--as", "reviewer_agent", "--to", "developer_agent", "--title", title)
	tm.waitFor("delivery", func() bool { n, _, _ := tm.store.Counts("developer_agent"); return n == 1 })
	keys("Enter")
	showing("the new message at the prompt", func(s string) bool {
		return strings.Contains(s, "📬 Mailbox: 1 new") && strings.Contains(s, title) && strings.Contains(s, "switchboard read "+id)
	})
	keys("echo second-prompt", "Enter")
	showing("the next prompt", func(s string) bool { return strings.Count(s, "📬 Mailbox: 1 new") >= 2 })
	if s := screen(); strings.Count(s, title) != 1 {
		t.Errorf("the title shows %d times; want once, at the first prompt after it came:\n%s", strings.Count(s, title), s)
	}

	// The switchboard a hint names is the one the hooks run, not the user's
	// other install.
	keys("command -v switchboard", "Enter")
	staged := filepath.Join(tm.root, "mailboxes", ".bin", "switchboard")
	showing("where switchboard is", func(s string) bool { return strings.Contains(s, staged) || strings.Contains(s, other) })
	if s := screen(); !strings.Contains(s, staged) {
		t.Errorf("switchboard in the pane is not the staged one (%s):\n%s", staged, s)
	}

	// The pane's shell kept the exit status for the user's prompt.
	keys("false; echo status=$?", "Enter")
	showing("the exit status of false", func(s string) bool { return strings.Contains(s, "status=1") })
}
