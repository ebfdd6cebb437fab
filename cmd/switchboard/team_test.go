package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"switchboard/conversation"
	"switchboard/internal/tmux"
	"switchboard/internal/watch"
	"switchboard/lifecycle"
	"switchboard/mailbox"
	"switchboard/profile"
	"switchboard/workspace"
)

// recorderProfile runs, in the agent's pane, a program that appends every
// line its terminal delivers to recv-<agent> in the workspace: what the
// master types, byte for byte. The tester's ends with status 7 on EOF.
func recorderProfile(name, display string, exitStatus int) string {
	script := `command -v switchboard > "$SWITCHBOARD_ROOT/which-$SWITCHBOARD_AGENT"; cat > "$SWITCHBOARD_ROOT/recv-$SWITCHBOARD_AGENT"`
	if exitStatus != 0 {
		script += fmt.Sprintf("; exit %d", exitStatus)
	}
	return fmt.Sprintf("display_name: %s\nkind: generic\ncommand: [\"sh\", \"-c\", %q]\n", display, script)
}

// teamSeq numbers the teams of this test process: each gets a tmux socket
// of its own, however many start at once.
var teamSeq atomic.Int64

type team struct {
	t      testing.TB
	root   string
	socket string
	store  *mailbox.Store
	env    []string // the environment of switchboard commands, and so of the panes; nil for the test's
}

func newTeam(t testing.TB) *team {
	t.Helper()
	if !tmux.Installed() {
		t.Skip("tmux is not installed: install it (apt-get install -y tmux) to run the team tests")
	}
	if testing.Short() {
		t.Skip("starts a team in tmux; skipped with -short")
	}
	root := t.TempDir()
	if _, err := profile.WriteDefaultTeam(root, false); err != nil {
		t.Fatal(err)
	}
	for name, display := range map[string]string{"master_agent": "Master Agent", "developer_agent": "Developer Agent", "reviewer_agent": "Reviewer Agent"} {
		writeTestFile(t, filepath.Join(root, "agents", name+".yaml"), recorderProfile(name, display, 0))
	}
	writeTestFile(t, filepath.Join(root, "agents", "tester_agent.yaml"), recorderProfile("tester_agent", "Tester Agent", 7))
	tm := &team{t: t, root: root, socket: fmt.Sprintf("sbteam-%d-%d", os.Getpid(), teamSeq.Add(1)), store: mailbox.NewStore(root)}
	t.Cleanup(func() {
		tm.switchboard("down")
		exec.Command("tmux", "-L", tm.socket, "kill-server").Run()
	})
	return tm
}

func writeTestFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// switchboard runs the real binary in the workspace and returns its output
// and exit code.
func (tm *team) switchboard(args ...string) (string, int) {
	out, code, err := tm.run(args...)
	if err != nil {
		tm.t.Fatalf("run switchboard %v: %v", args, err)
	}
	return out, code
}

// run runs the real binary in the workspace and returns its output and exit
// code, or the error that kept it from running; it may be called from any
// goroutine.
func (tm *team) run(args ...string) (string, int, error) {
	cmd := exec.Command("switchboard", args...)
	if _, err := os.Stat(tm.root); err == nil { // down --purge deletes it
		cmd.Dir = tm.root
	}
	env := tm.env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(env, "SWITCHBOARD_ROOT="+tm.root, "SWITCHBOARD_AGENT=", "TMUX=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if exitErr, ok := err.(*exec.ExitError); ok {
		return out.String(), exitErr.ExitCode(), nil
	}
	return out.String(), 0, err
}

func (tm *team) must(args ...string) string {
	tm.t.Helper()
	out, code := tm.switchboard(args...)
	if code != 0 {
		tm.t.Fatalf("switchboard %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
	return strings.TrimSpace(out)
}

func (tm *team) waitFor(what string, cond func() bool) {
	tm.t.Helper()
	if !watch.Until(context.Background(), 20*time.Millisecond, 30*time.Second, cond) {
		out, _ := exec.Command("tmux", "-L", tm.socket, "capture-pane", "-p", "-S", "-3000", "-t", "=switchboard:master").CombinedOutput()
		panes, _ := exec.Command("tmux", "-L", tm.socket, "list-panes", "-a", "-F", "#{pane_id} #{@agent} dead=#{pane_dead} status=#{pane_dead_status} cmd=#{pane_current_command}").CombinedOutput()
		session, _ := os.ReadFile(workspace.New(tm.root).SessionFile())
		tm.t.Fatalf("timed out waiting for %s\npanes:\n%s\nsession: %s\nmaster window:\n%s", what, panes, session, out)
	}
}

func (tm *team) received(agent string) string {
	data, _ := os.ReadFile(filepath.Join(tm.root, "recv-"+agent))
	return string(data)
}

func (tm *team) state(agent string) conversation.State {
	st, _, _ := conversation.Of(tm.store).State(agent)
	return st
}

func (tm *team) waitIdle(names ...string) {
	tm.t.Helper()
	for _, name := range names {
		tm.waitFor(name+" to be idle", func() bool { return tm.state(name).State == conversation.Idle })
	}
}

func TestTeamInTmux(t *testing.T) {
	tm := newTeam(t)
	out := tm.must("up", "-d", "--no-console", "--socket", tm.socket)
	if !strings.Contains(out, "4 agents in tmux session") {
		t.Fatalf("up said:\n%s", out)
	}
	everyone := []string{"master_agent", "developer_agent", "reviewer_agent", "tester_agent"}
	tm.waitIdle(everyone...)
	// Agents call switchboard from their panes: it must resolve there, to
	// the copy that outlives `go run`.
	for _, agent := range everyone {
		which, _ := os.ReadFile(filepath.Join(tm.root, "which-"+agent))
		if want := filepath.Join(tm.store.Dir, ".bin", "switchboard"); strings.TrimSpace(string(which)) != want {
			t.Errorf("in the pane of %s, switchboard is %q; want %s", agent, strings.TrimSpace(string(which)), want)
		}
	}

	// A message to an idle agent is typed as one line and submitted once.
	id := tm.must("send", "--as", "developer_agent", "--to", "reviewer_agent", "--title", "Review the login change")
	notice := "[FROM: Developer Agent] Review the login change (switchboard read " + id + ")\n"
	tm.waitFor("the notice in the reviewer's pane", func() bool { return tm.received("reviewer_agent") != "" })
	tm.waitIdle("reviewer_agent")
	if got := tm.received("reviewer_agent"); got != notice {
		t.Errorf("reviewer's pane received %q; want exactly %q", got, notice)
	}

	// A low-priority message is never typed.
	tm.must("send", "--as", "developer_agent", "--to", "master_agent", "--title", "FYI", "--priority", "low")

	// An interrupt from the master agent: ESC alone, then the notice.
	id = tm.must("interrupt", "tester_agent", "--reason", "Stop: rebase first", "--as", "master_agent")
	interrupt := "\x1b[INTERRUPT] [FROM: Master Agent] Stop: rebase first (switchboard read " + id + ")\n"
	tm.waitFor("the interrupt in the tester's pane", func() bool { return tm.received("tester_agent") != "" })
	tm.waitIdle("tester_agent")
	if got := tm.received("tester_agent"); got != interrupt {
		t.Errorf("tester's pane received %q; want exactly %q", got, interrupt)
	}

	// From an agent without interrupt rights: refused, nothing sent.
	out, code := tm.switchboard("interrupt", "tester_agent", "--reason", "me too", "--as", "developer_agent")
	if code != exitRefused || !strings.Contains(out, "may not interrupt") {
		t.Errorf("interrupt by developer_agent: exit %d, %q; want exit 3", code, out)
	}
	// An urgent message from the developer is typed as a normal notice,
	// without ESC, and the log says the interrupt was not permitted.
	id = tm.must("send", "--as", "developer_agent", "--to", "tester_agent", "--title", "Urgent: tests broken", "--priority", "urgent")
	want := interrupt + "[FROM: Developer Agent] Urgent: tests broken (switchboard read " + id + ")\n"
	tm.waitFor("the urgent notice", func() bool { return tm.received("tester_agent") == want })
	if log := tm.must("log"); !strings.Contains(log, "interrupt not permitted: developer_agent is not in the interrupts list") {
		t.Errorf("log does not say the interrupt was not permitted:\n%s", log)
	}
	if got := tm.received("master_agent"); got != "" {
		t.Errorf("master's pane received %q; a low-priority message must not be typed", got)
	}

	// A pane whose program ends shows as exited, with its status when tmux
	// reports one (it sometimes marks a pane dead without one).
	if _, err := exec.Command("tmux", "-L", tm.socket, "send-keys", "-t", paneOf(t, tm, "tester_agent"), "C-d").CombinedOutput(); err != nil {
		t.Fatal(err)
	}
	tm.waitFor("tester_agent to show as exited", func() bool { return tm.state("tester_agent").State == conversation.Exited })
	if st := tm.state("tester_agent"); st.ExitStatus != nil && *st.ExitStatus != 7 {
		t.Errorf("tester_agent exited with status %d; want 7", *st.ExitStatus)
	}
	var rows []agentRow
	if err := json.Unmarshal([]byte(tm.must("agents", "--json")), &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Name == "reviewer_agent" && (r.Unread != 1 || r.State != "idle" || r.Pane == "") {
			t.Errorf("agents: reviewer_agent = %+v; want idle in a pane with 1 unread", r)
		}
		if r.Name == "tester_agent" && (r.State != "exited" || r.Urgent != 2 || (r.ExitStatus != nil && *r.ExitStatus != 7)) {
			t.Errorf("agents: tester_agent = %+v; want exited with 2 urgent unread", r)
		}
	}

	// down keeps the mail; up brings every agent back and tells it of its
	// unread mail.
	out = tm.must("down")
	if !strings.Contains(out, "stopped the master") || !strings.Contains(out, "mail is kept") {
		t.Errorf("down said:\n%s", out)
	}
	if up, _ := tmux.NewClient(tm.socket, nil).HasSession(t.Context(), "switchboard"); up {
		t.Errorf("the session survived down")
	}
	tm.must("up", "-d", "--no-console", "--socket", tm.socket)
	tm.waitFor("the reviewer to hear of its unread mail again", func() bool {
		return strings.Contains(tm.received("reviewer_agent"), "Review the login change")
	})
	if unread, _, _ := tm.store.Counts("reviewer_agent"); unread != 1 {
		t.Errorf("reviewer has %d unread after down and up; want 1", unread)
	}
	out = tm.must("up", "-d", "--no-console", "--socket", tm.socket)
	if !strings.Contains(out, "already up") {
		t.Errorf("a second up said:\n%s", out)
	}
}

func paneOf(t testing.TB, tm *team, agent string) string {
	t.Helper()
	s, ok, err := lifecycle.LoadSession(workspace.New(tm.root))
	if err != nil || !ok {
		t.Fatalf("no session: %v", err)
	}
	return s.Agents[agent].Pane
}
