package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"switchboard/mailbox"
	"switchboard/workspace"
)

// TestAnAgentCannotBorrowAName is an agent trying what an LLM that met
// BLOCKED would: from its own pane, name another agent with --as, or set
// SWITCHBOARD_AGENT to one. Each attempt acts as the pane's own agent or is
// refused, and the log shows who tried; so is stopping the team. Outside the
// panes the person still acts for anyone.
func TestAnAgentCannotBorrowAName(t *testing.T) {
	tm := newTeam(t)
	home := t.TempDir()
	writeTestFile(t, filepath.Join(tm.root, "agents", "tester_agent.yaml"),
		"display_name: Tester Agent\nkind: shell\ncommand: [bash]\nenv: {HOME: \""+home+"\"}\n")
	tm.must("up", "-d", "--no-console", "--socket", tm.socket)
	tm.waitIdle("tester_agent")
	run := func(name, command string) string { return tm.runInPane("tester_agent", name, command) }

	if rc := run("as", "env -u SWITCHBOARD_AGENT switchboard send --as master_agent --to reviewer_agent --title 'Planted order'"); rc != "3" {
		t.Errorf("send --as master_agent from the tester's pane: exit %s; want 3, refused", rc)
	}
	if rc := run("read", "switchboard read --next --as reviewer_agent"); rc != "3" {
		t.Errorf("read --as reviewer_agent from the tester's pane: exit %s; want 3, refused", rc)
	}
	if rc := run("env", "SWITCHBOARD_AGENT=master_agent switchboard send --to reviewer_agent --title 'Env order'"); rc != "3" {
		t.Errorf("send with SWITCHBOARD_AGENT=master_agent: exit %s; want 3, refused", rc)
	}
	// The MCP server is the pane's agent's, as every command is.
	if rc := run("mcp", "switchboard mcp --as master_agent < /dev/null"); rc != "3" {
		t.Errorf("mcp --as master_agent from the tester's pane: exit %s; want 3, refused", rc)
	}
	if rc := run("down", "switchboard down"); rc != "3" {
		t.Errorf("down from the tester's pane: exit %s; want 3, refused", rc)
	}
	tm.waitFor("the attempts in the log", func() bool {
		log := tm.must("log")
		return strings.Count(log, "REFUSED: tester_agent tried to act as") == 4 && strings.Contains(log, "REFUSED: tester_agent tried to stop the team")
	})
	if _, running := workspace.New(tm.root).MasterRunning(); !running {
		t.Error("the tester's down stopped the master")
	}
	log := tm.must("log")
	if strings.Contains(log, "Planted order") || strings.Contains(log, "Env order") {
		t.Errorf("a borrowed name reached the log as a message:\n%s", log)
	}
	for _, e := range mustList(t, tm.store, "reviewer_agent") {
		if m, _ := mailbox.Load(e.Path); m != nil && (m.Title == "Planted order" || m.Title == "Env order") {
			t.Errorf("the reviewer got %q", m.Title)
		}
	}

	// Outside the panes, the person acts for anyone.
	if _, code := tm.switchboard("send", "--as", "master_agent", "--to", "reviewer_agent", "--title", "From the person"); code != 0 {
		t.Errorf("the operator's --as master_agent: exit %d; want 0", code)
	}
}

func mustList(t *testing.T, store *mailbox.Store, agent string) []mailbox.Entry {
	t.Helper()
	entries, err := store.List(agent, mailbox.All)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// runInPane types a command into the agent's pane, as the agent itself
// would run it, and returns its exit status; name tells its status file
// from the others'.
func (tm *team) runInPane(agent, name, command string) string {
	tm.t.Helper()
	pane := paneOf(tm.t, tm, agent)
	rc := filepath.Join(tm.root, "rc-"+name)
	line := command + "; echo $? > " + rc
	if out, err := exec.Command("tmux", "-L", tm.socket, "send-keys", "-t", pane, "-l", line).CombinedOutput(); err != nil {
		tm.t.Fatalf("type into the pane of %s: %v\n%s", agent, err, out)
	}
	exec.Command("tmux", "-L", tm.socket, "send-keys", "-t", pane, "Enter").Run()
	var got []byte
	waitUntil(tm.t, 15*time.Second, name+" to finish in the pane of "+agent, func() bool {
		got, _ = os.ReadFile(rc)
		return len(got) > 0
	}, func() string {
		screen, _ := exec.Command("tmux", "-L", tm.socket, "capture-pane", "-p", "-t", pane).CombinedOutput()
		return "its screen:\n" + string(screen)
	})
	return strings.TrimSpace(string(got))
}
