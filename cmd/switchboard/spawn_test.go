package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"switchboard/desk"
	"switchboard/internal/proctree"
	"switchboard/lifecycle"
	"switchboard/mailbox"
	"switchboard/workspace"
)

// TestSpawnWaitCloseTree spawns a three-level tree of agents into a running
// team, collects a child's answer with wait, closes the tree from the top,
// and brings a spawned agent back after down and up.
func TestSpawnWaitCloseTree(t *testing.T) {
	tm := newTeam(t)
	tm.must("up", "-d", "--no-console", "--socket", tm.socket)
	tm.waitIdle("master_agent", "developer_agent", "reviewer_agent", "tester_agent")

	var child desk.Spawned
	out := tm.must("spawn", "--as", "developer_agent", "--profile", "reviewer_agent", "--task", "Review auth.go", "--json")
	if err := json.Unmarshal([]byte(out), &child); err != nil || child.Name != "reviewer_agent-1" || child.Parent != "developer_agent" || child.Task == "" {
		t.Fatalf("spawn said %s (%v); want reviewer_agent-1, child of developer_agent, with a task", out, err)
	}
	// The task reaches the new pane as its first notice.
	want := "[FROM: Developer Agent] Task: Review auth.go (switchboard read " + child.Task + ")\n"
	tm.waitFor("the task in the child's pane", func() bool { return tm.received("reviewer_agent-1") == want })

	tm.must("spawn", "--as", "reviewer_agent-1", "--profile", "reviewer_agent", "--name", "deep")
	tm.must("spawn", "--as", "deep", "--profile", "reviewer_agent", "--name", "deeper")
	tree := tm.must("agents")
	for _, line := range []string{"\n└─ reviewer_agent-1", "\n   └─ deep ", "\n      └─ deeper "} {
		if !strings.Contains(tree, line) {
			t.Errorf("agents does not show %q:\n%s", line, tree)
		}
	}

	// A child may answer its parent, whatever the rules say of its profile.
	tm.must("send", "--as", "reviewer_agent-1", "--to", "developer_agent", "--type", "response", "--title", "Review done", "--content", "LGTM, one nit")
	if got := tm.must("wait", "reviewer_agent-1", "--as", "developer_agent", "--timeout", "20s"); !strings.Contains(got, "LGTM, one nit") {
		t.Errorf("wait printed %q; want the child's response", got)
	}
	if out, code := tm.switchboard("wait", "deep", "--as", "reviewer_agent-1", "--timeout", "1s"); code != exitTimedOut {
		t.Errorf("wait with no response: exit %d (%s); want 4", code, out)
	}

	// Layered trust: the child asks its parent (no --to), the parent passes
	// the question up to the person, whose answer comes back down.
	childAsk := tm.start("ask", "--as", "reviewer_agent-1", "--title", "May I push to main?", "--options", "yes,no", "--timeout", "30s")
	request := tm.waitUnread("developer_agent", "May I push to main?")
	parentAsk := tm.start("ask", "--as", "developer_agent", "--forward", request, "--timeout", "30s")
	forwarded := tm.waitUnread("operator", "May I push to main?")
	tm.must("reply", forwarded, "--option", "yes")
	if got := parentAsk(); got != "yes" {
		t.Errorf("the parent's forwarded ask printed %q; want yes", got)
	}
	if got := childAsk(); got != "yes" {
		t.Errorf("the child's ask printed %q; want yes", got)
	}

	// Only ancestors and overseers close; closing goes from the leaves up.
	if out, code := tm.switchboard("close", "deep", "--as", "tester_agent"); code != exitRefused {
		t.Errorf("close by a stranger: exit %d (%s); want 3", code, out)
	}
	panes := func() string {
		out, _ := exec.Command("tmux", "-L", tm.socket, "list-panes", "-a", "-F", "#{@agent}").CombinedOutput()
		return string(out)
	}
	if !strings.Contains(panes(), "deeper") {
		t.Fatalf("no pane for deeper before close:\n%s", panes())
	}
	if got := tm.must("close", "reviewer_agent-1", "--as", "developer_agent"); got != "closed deeper, deep, reviewer_agent-1" {
		t.Errorf("close said %q; want the leaves first", got)
	}
	if p := panes(); strings.Contains(p, "deep") || strings.Contains(p, "reviewer_agent-1") {
		t.Errorf("panes left after close:\n%s", p)
	}
	if tree := tm.must("agents"); strings.Contains(tree, "deep") || strings.Contains(tree, "reviewer_agent-1") {
		t.Errorf("closed agents still listed:\n%s", tree)
	}

	// A spawned agent outlives down and up.
	tm.must("spawn", "--as", "developer_agent", "--profile", "reviewer_agent", "--name", "survivor")
	tm.must("down")
	tm.must("up", "-d", "--no-console", "--socket", tm.socket)
	tm.waitFor("the survivor back in its pane", func() bool {
		s, ok, _ := lifecycle.LoadSession(workspace.New(tm.root))
		return ok && s.Agents["survivor"] != nil && s.Agents["survivor"].Parent == "developer_agent" && strings.Contains(panes(), "survivor")
	})
}

// start runs switchboard in the background; the returned function waits
// for it and returns its standard output, trimmed.
func (tm *team) start(args ...string) func() string {
	tm.t.Helper()
	cmd, out, errOut := tm.launch(args...)
	return func() string {
		if err := cmd.Wait(); err != nil {
			tm.t.Errorf("switchboard %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
		}
		return strings.TrimSpace(out.String())
	}
}

// startCode runs switchboard in the background; the returned function waits
// for it and returns its exit code.
func (tm *team) startCode(args ...string) func() int {
	tm.t.Helper()
	cmd, _, _ := tm.launch(args...)
	return func() int {
		cmd.Wait()
		return cmd.ProcessState.ExitCode()
	}
}

func (tm *team) launch(args ...string) (cmd *exec.Cmd, out, errOut *bytes.Buffer) {
	tm.t.Helper()
	cmd = exec.Command("switchboard", args...)
	cmd.Dir = tm.root
	cmd.Env = append(os.Environ(), "SWITCHBOARD_ROOT="+tm.root, "SWITCHBOARD_AGENT=", "TMUX=")
	out, errOut = &bytes.Buffer{}, &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = out, errOut
	if err := cmd.Start(); err != nil {
		tm.t.Fatal(err)
	}
	return cmd, out, errOut
}

// waitUnread waits for an unread message with the title in the agent's
// inbox and returns its id.
func (tm *team) waitUnread(agent, title string) string {
	tm.t.Helper()
	var id string
	tm.waitFor(title+" in the inbox of "+agent, func() bool {
		entries, _ := tm.store.List(agent, mailbox.Unread)
		for _, e := range entries {
			if m, err := mailbox.Load(e.Path); err == nil && m.Title == title {
				id = m.ID
				return true
			}
		}
		return false
	})
	return id
}

// TestCloseEndsAPaneThatIgnoresHangups closes a spawned agent whose program
// shrugs off SIGHUP and SIGTERM, as Gemini CLI carries on when its terminal
// goes: nothing of its pane may be left running.
func TestCloseEndsAPaneThatIgnoresHangups(t *testing.T) {
	tm := newTeam(t)
	writeTestFile(t, filepath.Join(tm.root, "agents", "reviewer_agent.yaml"),
		"display_name: Reviewer Agent\nkind: generic\ncommand: [\"sh\", \"-c\", \"trap '' HUP TERM; sh -c \\\"trap '' HUP TERM; while :; do sleep 1; done\\\" & while :; do sleep 1; done\"]\n")
	tm.must("up", "-d", "--no-console", "--socket", tm.socket)
	tm.must("spawn", "--as", "developer_agent", "--profile", "reviewer_agent", "--name", "stubborn")
	var leader int
	tm.waitFor("the stubborn agent's pane", func() bool {
		out, _ := exec.Command("tmux", "-L", tm.socket, "display-message", "-p", "-t", paneOf(t, tm, "stubborn"), "#{pane_pid}").Output()
		leader, _ = strconv.Atoi(strings.TrimSpace(string(out)))
		return leader > 0 && len(proctree.Session(leader)) >= 3
	})
	tm.must("close", "stubborn", "--as", "developer_agent")
	if left := proctree.Session(leader); len(left) > 0 {
		t.Errorf("after close, the pane's session still runs %v", left)
	}
}
