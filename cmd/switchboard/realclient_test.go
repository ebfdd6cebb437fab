package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"switchboard/conversation"
	"switchboard/desk"
	"switchboard/internal/proctree"
	"switchboard/internal/safetext"
	"switchboard/internal/testkit/realclient"
	"switchboard/internal/watch"
	"switchboard/mailbox"
	"switchboard/workspace"
)

// The real agent clients, installed from npm and run against loopback
// stand-ins of their model APIs (see package realclient). Each test is what
// a user of a team would notice: the agent knows who it is, sees each
// message once, answers its mail with its own switchboard command and no
// person at the pane, runs nothing else unasked, and leaves no process
// behind.

// announcedID finds the ids of the messages announced to the model: by a
// typed notice, or listed by a hook (when the hook claimed the message
// before the notice was typed).
var announcedID = regexp.MustCompile(`(?:\(switchboard read |, id )([0-9a-f-]{36})[):]`)

const cardLine = "switchboard: you are Developer Agent (developer_agent)"

// listings counts how often a conversation was shown the message with id:
// listed by a hook, or announced by a typed notice.
func listings(text, id string) int {
	return strings.Count(text, "id "+id+": ") + strings.Count(text, "(switchboard read "+id+")")
}

// The headless tests run one turn of each client (claude -p, codex exec,
// gemini -p) with the wiring `hooks install --write` prints, started
// exactly as it says.
func TestClaudeCodeHeadless(t *testing.T) { testHeadless(t, realclient.ClaudeCode) }
func TestCodexHeadless(t *testing.T)      { testHeadless(t, realclient.Codex) }
func TestGeminiHeadless(t *testing.T)     { testHeadless(t, realclient.GeminiCLI) }

func testHeadless(t *testing.T, c realclient.Client) {
	// The real clients' tests run beside each other: each has its own tmux
	// server, folder and stand-in model, and spends its time waiting on its
	// client.
	t.Parallel()
	program := c.Install(t)
	bin, err := exec.LookPath("switchboard")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	mustRun(t, root, nil, bin, "init")
	m := startMaster(t, root)
	defer m.stop(t)
	store := mailbox.NewStore(root)
	u := c.NewUser(t, root)
	const agent = "developer_agent"
	env := append(quickExit(u.Env), "SWITCHBOARD_AGENT="+agent, "SWITCHBOARD_ROOT="+root,
		"PATH="+filepath.Dir(program)+string(os.PathListSeparator)+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))

	// The wiring, as a user gets it; the client starts as it says.
	var hint bytes.Buffer
	install := exec.Command(bin, "hooks", "install", "--kind", c.Kind, "--agent", agent, "--write")
	install.Dir, install.Env, install.Stderr = root, env, &hint
	if out, err := install.Output(); err != nil {
		t.Fatalf("hooks install --write: %v\n%s%s", err, out, hint.String())
	}
	start, ok := strings.CutPrefix(strings.TrimSpace(hint.String()), "start the agent with: ")
	if !ok {
		t.Fatalf("hooks install --write said %q; want how to start the agent", hint.String())
	}

	id1, err := send(bin, root, "reviewer_agent", agent, "Please review the login fix")
	if err != nil {
		t.Fatal(err)
	}
	// Outside the workspace and the temporary folder, where Codex's sandbox
	// lets a trusted project write.
	marker := unaskedMarker(t)
	reply := "switchboard reply " + id1 + " --content 'Looks good to me'"
	attack := "switchboard inbox && touch " + marker

	// The model answers its mail with a reply, then tries a command the
	// wiring does not allow, then stops. Mail arrives meanwhile: a normal
	// message before the first answer, an urgent one before the second.
	var mu sync.Mutex
	var busy []string
	var id2, id3 string
	u.API.BeforeNextAnswer(func() error {
		busy = append(busy, stateOf(store, agent))
		var err error
		id2, err = send(bin, root, "reviewer_agent", agent, "Also check the session timeout")
		return err
	})
	tools := 0
	u.API.Respond(func(r realclient.Request) realclient.Answer {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case r.Tools && !r.AfterTool && tools == 0 && r.Contains(id1):
			tools++
			return realclient.Answer{Command: reply}
		case r.AfterTool && tools == 1:
			tools++
			u.API.BeforeNextAnswer(func() error {
				var err error
				id3, err = sendPriority(bin, root, "master_agent", agent, "Stop: the API changed", "urgent")
				return err
			})
			return realclient.Answer{Command: attack}
		}
		return realclient.TextReply(r)
	})

	mark := u.API.Mark()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := c.Headless("Please handle your mail.")
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = safetext.ShellWord(a)
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", start+" "+strings.Join(quoted, " "))
	cmd.Dir, cmd.Env = root, env
	began := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("%s %v in %v", c.Name, err, time.Since(began).Round(time.Millisecond))
	reqs := u.API.Since(mark)
	if err != nil {
		t.Fatalf("%s: %v\n%s\n%s", start, err, out, dumpRequests(reqs))
	}
	if len(reqs) == 0 {
		t.Fatalf("the client sent the stand-in no request:\n%s", out)
	}
	if len(reqs) > 8 {
		t.Errorf("one turn made %d requests: the end-of-turn hook loops?\n%s", len(reqs), dumpRequests(reqs))
	}
	last := reqs[len(reqs)-1].Text
	if !reqs[0].Contains(cardLine) {
		t.Errorf("the first request does not tell the model who it is:\n%s", dumpRequests(reqs[:1]))
	}
	for _, msg := range []struct{ id, what string }{{id1, "waiting at the start"}, {id2, "sent mid-turn"}, {id3, "urgent, sent mid-turn"}} {
		if msg.id == "" {
			t.Errorf("the message %s was never sent: the turn ended early", msg.what)
		} else if n := listings(last, msg.id); n != 1 {
			t.Errorf("the message %s (%s) reached the conversation %d times; want once\n%s", msg.what, msg.id, n, dumpRequests(reqs))
		}
	}
	if got := responsesTo(t, store, "reviewer_agent", id1); len(got) != 1 {
		t.Errorf("the reviewer got %d answers to %s; want the model's one reply, run with no prompt\n%s", len(got), id1, dumpRequests(reqs))
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("%q ran without a prompt: the wiring allows more than switchboard's own commands", attack)
	}
	if len(busy) != 1 || busy[0] != conversation.Busy {
		t.Errorf("state while the model worked: %q; want busy", busy)
	}
	waitState(t, store, agent, conversation.Exited)
}

// The team tests bring up a team whose developer runs the real client in
// tmux, and send it mail from a teammate: the master types the notice, the
// model answers with its own `switchboard reply`, and nobody touches the
// pane. Then `down` leaves none of the client's processes.
func TestClaudeCodeInATeam(t *testing.T) { testInTeam(t, realclient.ClaudeCode) }
func TestCodexInATeam(t *testing.T)      { testInTeam(t, realclient.Codex) }
func TestGeminiInATeam(t *testing.T)     { testInTeam(t, realclient.GeminiCLI) }

// clientInTeam is a team whose agent (profile agents/<agent>.yaml, with
// display and the profile's extra lines) runs the real client c, offline,
// as the user of its stand-in model API.
func clientInTeam(t testing.TB, c realclient.Client, agent, display, extra string) (*team, realclient.User) {
	t.Helper()
	program := c.Install(t)
	tm := newTeam(t)
	u := c.NewUser(t, tm.root)
	// Started from a shell that says it is a CI job, as CI's is: a client
	// that reads that as "run headless" must still wait for its next prompt.
	tm.env = append(quickExit(u.Env), "CI=true")
	command, _ := json.Marshal(append([]string{program}, c.Interactive[1:]...))
	writeTestFile(t, filepath.Join(tm.root, "agents", agent+".yaml"),
		fmt.Sprintf("display_name: %s\nkind: %s\ncommand: %s\n%s", display, c.Kind, command, extra))
	return tm, u
}

func testInTeam(t *testing.T, c realclient.Client) {
	t.Parallel() // as testHeadless
	tm, u := clientInTeam(t, c, "developer_agent", "Developer Agent", "")
	const agent = "developer_agent"

	u.API.Respond(replyToEachAnnounced("Done, see the branch"))
	var mu sync.Mutex
	var busy []string

	tm.must("up", "-d", "--no-console", "--socket", tm.socket)
	waitUntil(t, time.Minute, agent+" to be idle after start", func() bool { return tm.state(agent).State == conversation.Idle }, tm.diagnose)

	// A message from a teammate: typed as the prompt, answered by the model.
	// Another arrives while the model works: the end of the turn shows it,
	// and the master, finding the agent idle after, must not type it again.
	var idMid string
	u.API.BeforeNextAnswer(func() error {
		mu.Lock()
		busy = append(busy, tm.state(agent).State)
		mu.Unlock()
		var err error
		idMid, err = send("switchboard", tm.root, "master_agent", agent, "Also check the session timeout")
		return err
	})
	mark := u.API.Mark()
	id1 := tm.sendAs("reviewer_agent", agent, "Review the login change")
	waitUntil(t, time.Minute, "the model's reply to reach the reviewer", func() bool {
		return len(responsesTo(t, tm.store, "reviewer_agent", id1)) == 1
	}, func() string { return tm.diagnose() + dumpRequests(u.API.Since(mark)) })
	waitUntil(t, time.Minute, agent+" to be idle after its turn", func() bool { return tm.state(agent).State == conversation.Idle }, tm.diagnose)

	// A second message: its turn shows whether the first came back.
	id2 := tm.sendAs("reviewer_agent", agent, "And the session timeout")
	waitUntil(t, time.Minute, "the model's reply to the second message", func() bool {
		return len(responsesTo(t, tm.store, "reviewer_agent", id2)) == 1
	}, func() string { return tm.diagnose() + dumpRequests(u.API.Since(mark)) })
	waitUntil(t, time.Minute, agent+" to be idle again", func() bool { return tm.state(agent).State == conversation.Idle }, tm.diagnose)
	reqs := u.API.Since(mark)
	last := reqs[len(reqs)-1].Text
	for _, id := range []string{id1, idMid, id2} {
		if n := listings(last, id); n != 1 {
			t.Errorf("message %s reached the conversation %d times; want once\n%s", id, n, dumpRequests(reqs))
		}
	}
	if !strings.Contains(last, cardLine) {
		t.Errorf("the conversation never told the model who it is:\n%s", dumpRequests(reqs))
	}
	mu.Lock()
	if len(busy) == 0 || busy[0] != conversation.Busy {
		t.Errorf("state while the model worked: %q; want busy", busy)
	}
	mu.Unlock()

	// down ends every process the panes started, also a client that
	// outlives its terminal's hangup.
	leaders := tm.panePIDs()
	tm.must("down")
	for _, pid := range leaders {
		if left := proctree.Session(pid); len(left) > 0 {
			t.Errorf("after down, the pane led by %d still runs %v", pid, left)
		}
	}
}

// replyToEachAnnounced is a model that answers each message announced to
// it, once, with content, by running switchboard reply: also one that
// reaches it in the middle of a turn, between two tool calls, as the
// client's own inbox hands them over.
func replyToEachAnnounced(content string) realclient.Responder {
	var mu sync.Mutex
	replied := map[string]bool{}
	return func(r realclient.Request) realclient.Answer {
		mu.Lock()
		defer mu.Unlock()
		for _, m := range announcedID.FindAllStringSubmatch(r.Text, -1) {
			if id := m[1]; r.Tools && !replied[id] {
				replied[id] = true
				return realclient.Answer{Command: "switchboard reply " + id + " --content '" + content + "'"}
			}
		}
		return realclient.TextReply(r)
	}
}

// upIdle brings the team up, detached, with args, and waits for agent's
// client to be idle.
func (tm *team) upIdle(agent string, args ...string) {
	tm.t.Helper()
	tm.must(append([]string{"up", "-d", "--no-console", "--socket", tm.socket}, args...)...)
	waitUntil(tm.t, time.Minute, agent+" to be idle after start", func() bool { return tm.state(agent).State == conversation.Idle }, tm.diagnose)
}

// answered sends a request from the reviewer to agent, waits for the
// model's reply to it and for the agent to be idle after its turn, and
// returns the message's id and the text of the request that carried it.
func (tm *team) answered(api realclient.API, agent, title string) (id, request string) {
	tm.t.Helper()
	mark := api.Mark()
	id = tm.sendAs("reviewer_agent", agent, title)
	explain := func() string { return tm.diagnose() + dumpRequests(api.Since(mark)) }
	waitUntil(tm.t, time.Minute, "the model's reply to "+title, func() bool {
		return len(responsesTo(tm.t, tm.store, "reviewer_agent", id)) == 1
	}, explain)
	waitUntil(tm.t, time.Minute, agent+" to be idle after its turn", func() bool { return tm.state(agent).State == conversation.Idle }, explain)
	for _, r := range api.Since(mark) {
		if r.Contains(id) {
			return id, r.Text
		}
	}
	tm.t.Fatalf("no request carried %s\n%s", id, explain())
	return "", ""
}

// unreadTitled is how many unread messages of agent have a title that
// starts with prefix.
func (tm *team) unreadTitled(agent, prefix string) int {
	items, _, _ := desk.New(workspace.New(tm.root), nil, agent).Inbox(false)
	n := 0
	for _, it := range items {
		if strings.HasPrefix(it.Title, prefix) {
			n++
		}
	}
	return n
}

// sendAs sends a request from an agent, as the operator may, and returns
// its id once it is delivered.
func (tm *team) sendAs(from, to, title string) string {
	tm.t.Helper()
	id, err := send("switchboard", tm.root, from, to, title)
	if err != nil {
		tm.t.Fatal(err)
	}
	return id
}

// panePIDs are the processes tmux started the panes with.
func (tm *team) panePIDs() []int {
	tm.t.Helper()
	out, err := exec.Command("tmux", "-L", tm.socket, "list-panes", "-a", "-F", "#{pane_pid}").Output()
	if err != nil {
		tm.t.Fatalf("list panes: %v", err)
	}
	var pids []int
	for _, f := range strings.Fields(string(out)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// diagnose is what a person would look at when a team test times out: the
// panes' screens and the master's window.
func (tm *team) diagnose() string {
	var b strings.Builder
	panes, err := exec.Command("tmux", "-L", tm.socket, "list-panes", "-a", "-F", "#{pane_id} #{@agent} dead=#{pane_dead} status=#{pane_dead_status} signal=#{pane_dead_signal}").Output()
	if err != nil {
		fmt.Fprintf(&b, "cannot list the team's panes: %v\n", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(panes)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		screen, _ := exec.Command("tmux", "-L", tm.socket, "capture-pane", "-p", "-S", "-60", "-t", f[0]).Output()
		fmt.Fprintf(&b, "---- pane %s ----\n%s\n", line, strings.TrimRight(string(screen), "\n "))
	}
	return b.String()
}

// waitUntil polls cond until it holds, or fails the test after d with what
// it was waiting for and what explain says.
func waitUntil(t testing.TB, d time.Duration, what string, cond func() bool, explain func() string) {
	t.Helper()
	if !watch.Until(context.Background(), 50*time.Millisecond, d, cond) {
		t.Fatalf("timed out after %v waiting for %s\n%s", d, what, explain())
	}
}

// responsesTo lists the responses in agent's inbox that answer the message id.
func responsesTo(t testing.TB, store *mailbox.Store, agent, id string) []*mailbox.Message {
	entries, err := store.List(agent, mailbox.All)
	if err != nil {
		return nil
	}
	var out []*mailbox.Message
	for _, e := range entries {
		if msg, err := mailbox.Load(e.Path); err == nil && msg.InReplyTo == id && msg.Type == mailbox.TypeResponse {
			out = append(out, msg)
		}
	}
	return out
}

// send posts a request as from, waits until the master has delivered it,
// and returns its id.
func send(bin, root, from, to, title string) (string, error) {
	return sendMessage(bin, root, from, to, title, "normal", "")
}

func sendPriority(bin, root, from, to, title, priority string) (string, error) {
	return sendMessage(bin, root, from, to, title, priority, "")
}

func sendWith(bin, root, from, to, title, content string) (string, error) {
	return sendMessage(bin, root, from, to, title, "normal", content)
}

// sendMessage sends a request, as the operator acting for from may, and
// returns its id once it is delivered.
func sendMessage(bin, root, from, to, title, priority, content string) (string, error) {
	store := mailbox.NewStore(root)
	before, _ := store.UnreadNames(to)
	cmd := exec.Command(bin, "send", "--root", root, "--as", from, "--to", to, "--title", title, "--type", "request", "--priority", priority, "--content", content)
	cmd.Env = quickExit(append(os.Environ(), "SWITCHBOARD_AGENT=", "SWITCHBOARD_ROOT=", "TMUX="))
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("switchboard send: %v\n%s", err, stderrOf(err))
	}
	if !waitFor(func() bool {
		names, _ := store.UnreadNames(to)
		return len(names) > len(before)
	}) {
		return "", fmt.Errorf("%q was not delivered to %s within 10s", title, to)
	}
	return strings.TrimSpace(string(out)), nil
}

func mustRun(t *testing.T, dir string, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, quickExit(append(os.Environ(), env...))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// quickExit keeps a race-enabled switchboard from pausing a second at
// exit, as the race detector does by default: a client runs a hook at
// every event and waits for each.
func quickExit(env []string) []string {
	race := "atexit_sleep_ms=0"
	for i, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GORACE="); ok {
			env = append([]string(nil), env...)
			env[i] = "GORACE=" + v + " " + race
			return env
		}
	}
	return append(env, "GORACE="+race)
}

func stderrOf(err error) []byte {
	if exitErr, ok := err.(*exec.ExitError); ok {
		return exitErr.Stderr
	}
	return nil
}

func stateOf(store *mailbox.Store, agent string) string {
	st, _, _ := conversation.Of(store).State(agent)
	return st.State
}

func waitState(t *testing.T, store *mailbox.Store, agent, want string) {
	t.Helper()
	if !waitFor(func() bool { return stateOf(store, agent) == want }) {
		t.Errorf("%s is %q after the session; want %q", agent, stateOf(store, agent), want)
	}
}

// dumpRequests shows what switchboard put into each request: the whole
// system prompt of a client would bury it.
func dumpRequests(reqs []realclient.Request) string {
	var b strings.Builder
	for _, r := range reqs {
		fmt.Fprintf(&b, "---- request %d %s (after a tool: %v) ----\n", r.N, r.Path, r.AfterTool)
		for _, line := range strings.Split(strings.ReplaceAll(r.Text, realclient.Sep, "\n"), "\n") {
			if strings.Contains(line, "switchboard") || strings.Contains(line, "stand-in") || strings.Contains(line, "[FROM: ") {
				b.WriteString(line + "\n")
			}
		}
	}
	return b.String()
}

// unaskedMarker is a path that a command run outside the client's sandbox
// could write, and one run inside it could not.
func unaskedMarker(t *testing.T) string {
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("no cache folder for the marker file: %v", err)
	}
	dir, err := os.MkdirTemp(filepath.Join(cache, "switchboard-test"), "unasked-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "ran-unasked")
}
