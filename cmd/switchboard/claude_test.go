package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"switchboard/mailbox"
)

// claudeCodeVersion is the client the stand-in below was checked against;
// bump it on purpose, not by whatever the registry serves today.
const claudeCodeVersion = "2.1.197"

// TestClaudeCode runs the real Claude Code client, wired to switchboard's
// hooks, against a loopback stand-in for the Messages API, and checks what
// the user of a team would notice: the agent knows who it is and sees its
// mail once, mail that arrives while it works keeps it from stopping, and
// its state follows the session.
func TestClaudeCode(t *testing.T) {
	if testing.Short() {
		t.Skip("installs and runs the real Claude Code client; skipped with -short")
	}
	claude := installClaudeCode(t)
	bin, err := exec.LookPath("switchboard")
	if err != nil {
		t.Fatal(err)
	}
	if bin, err = filepath.Abs(bin); err != nil {
		t.Fatal(err)
	}

	root := t.TempDir()
	initCmd := exec.Command(bin, "init")
	initCmd.Dir = root
	initCmd.Env = quickExit(os.Environ())
	if out, err := initCmd.CombinedOutput(); err != nil {
		t.Fatalf("switchboard init: %v\n%s", err, out)
	}
	m := startMaster(t, root)
	defer m.stop(t)
	store := mailbox.NewStore(root)

	const (
		agent      = "developer_agent"
		firstTitle = "Please review the login fix"
		lateTitle  = "The tests fail on main"
	)
	// What the hooks print for one message: sender, kind, id and title.
	listed := func(id, title string) string {
		return fmt.Sprintf("- from Reviewer Agent (reviewer_agent), normal request, id %s: %q", id, title)
	}
	firstID, err := send(bin, root, "reviewer_agent", agent, firstTitle)
	if err != nil {
		t.Fatal(err)
	}

	api := newFakeMessagesAPI(t)
	// The wiring a user gets from hooks install, loaded as they would.
	install := exec.Command(bin, "--root", root, "hooks", "install", "--kind", "claude", "--agent", agent)
	install.Env = quickExit(os.Environ())
	wiring, err := install.Output()
	if err != nil {
		t.Fatalf("switchboard hooks install: %v\n%s", err, stderrOf(err))
	}
	settings := filepath.Join(t.TempDir(), "settings.json")
	writeTestFile(t, settings, string(wiring))
	client := claudeClient{path: claude, home: t.TempDir(), dir: root, settings: settings, api: api.URL}

	// Turn one: the message that waited for the agent reaches the model,
	// with who sent it, next to the card that tells the agent who it is.
	turn := api.turn()
	if out := client.run(t, "hello"); !strings.Contains(out, "stand-in reply") {
		t.Errorf("claude -p printed %q; want the stand-in's answer", out)
	}
	first := turn.texts()
	if len(first) == 0 {
		t.Fatal("the client sent the stand-in no request in turn one")
	}
	if !anyContains(first, "switchboard: you are Developer Agent (developer_agent)") {
		t.Errorf("no request of turn one tells the model who it is:\n%s", dump(first))
	}
	if !anyContains(first, "1 unread message from another agent of your team:\n"+listed(firstID, firstTitle)) {
		t.Errorf("no request of turn one shows the waiting message with its sender:\n%s", dump(first))
	}
	if anyContains(first, "Stop hook feedback") {
		t.Errorf("turn one was kept from stopping though its only message had been shown:\n%s", dump(first))
	}
	waitState(t, store, agent, mailbox.StateExited)

	// Turn two: the old message is counted but not listed again; one that
	// arrives while the model works keeps the agent from stopping until it
	// has been shown.
	late := make(chan string, 1)
	turn = api.turn()
	api.beforeFirstAnswer(func() error {
		id, err := send(bin, root, "reviewer_agent", agent, lateTitle)
		late <- id
		return err
	})
	if out := client.run(t, "hello again"); !strings.Contains(out, "stand-in reply") {
		t.Errorf("claude -p printed %q; want the stand-in's answer", out)
	}
	second := turn.texts()
	var lateID string
	select {
	case lateID = <-late:
	default:
		t.Fatalf("the client sent no request in turn two, so %q was never sent", lateTitle)
	}
	if len(second) < 2 {
		t.Errorf("turn two sent %d requests; want the answer and the one after the Stop hook's feedback:\n%s", len(second), dump(second))
	}
	if anyContains(second, firstTitle) || anyContains(second, firstID) {
		t.Errorf("turn two shows %q again:\n%s", firstTitle, dump(second))
	}
	if !anyContains(second, "switchboard: you are Developer Agent (developer_agent)") || !anyContains(second, "Mailbox: 1 new") {
		t.Errorf("turn two's hooks did not run, or did not count the unread message:\n%s", dump(second))
	}
	if !anyContains(second, "Stop hook feedback:\nswitchboard: 1 new message from another agent of your team:\n"+listed(lateID, lateTitle)) {
		t.Errorf("the message that arrived during turn two did not come back as Stop hook feedback:\n%s", dump(second))
	}
	waitState(t, store, agent, mailbox.StateExited)
}

// send posts a message as from, waits until the master has delivered it,
// and returns its id.
func send(bin, root, from, to, title string) (string, error) {
	store := mailbox.NewStore(root)
	before, _ := store.UnreadNames(to)
	cmd := exec.Command(bin, "send", "--root", root, "--as", from, "--to", to, "--title", title, "--type", "request")
	cmd.Env = quickExit(os.Environ())
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

// quickExit keeps a race-enabled switchboard from pausing a second at
// exit, as the race detector does by default: the client runs a hook at
// every event and waits for each.
func quickExit(env []string) []string {
	race := "atexit_sleep_ms=0"
	for i, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GORACE="); ok {
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

// dump shows what switchboard put into each request: the whole system
// prompt of the client would bury it.
func dump(texts []string) string {
	var b strings.Builder
	for i, text := range texts {
		fmt.Fprintf(&b, "---- request %d of the turn ----\n", i+1)
		for _, s := range strings.Split(text, valueSep) {
			if strings.Contains(s, "switchboard") {
				b.WriteString(s + "\n")
			}
		}
	}
	return b.String()
}

func waitState(t *testing.T, store *mailbox.Store, agent, want string) {
	t.Helper()
	var got string
	if !waitFor(func() bool {
		data, err := os.ReadFile(store.StatePath(agent))
		var st struct {
			State string `json:"state"`
		}
		if err == nil && json.Unmarshal(data, &st) == nil {
			got = st.State
		}
		return got == want
	}) {
		t.Errorf("%s is %q after the session; want %q", agent, got, want)
	}
}

// anyContains reports whether one of texts contains part.
func anyContains(texts []string, part string) bool {
	for _, text := range texts {
		if strings.Contains(text, part) {
			return true
		}
	}
	return false
}

type claudeClient struct {
	path, home, dir, settings, api string
}

// run runs one turn of `claude -p` and returns what it printed.
func (c claudeClient) run(t *testing.T, prompt string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.path, "-p", prompt, "--settings", c.settings)
	cmd.Dir = c.dir
	cmd.Env = c.env()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("claude -p %q: %v in %v", prompt, err, time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("claude -p %q: %v\nstdout:\n%s\nstderr:\n%s", prompt, err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// env is the test's environment without anything that would send the
// client elsewhere than the stand-in, or make the hooks act for someone else.
func (c claudeClient) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		upper := strings.ToUpper(name)
		if strings.HasPrefix(upper, "ANTHROPIC_") || strings.HasPrefix(upper, "CLAUDE") ||
			strings.HasPrefix(upper, "SWITCHBOARD_") || strings.HasSuffix(upper, "_PROXY") ||
			upper == "HOME" || upper == "TMUX" || strings.HasPrefix(upper, "XDG_") {
			continue
		}
		env = append(env, kv)
	}
	return append(quickExit(env),
		"HOME="+c.home,
		"ANTHROPIC_BASE_URL="+c.api,
		"ANTHROPIC_API_KEY=sk-ant-switchboard-test-key-0000000000",
		"CLAUDE_CODE_MAX_RETRIES=0",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"NO_PROXY=127.0.0.1,localhost",
	)
}

// fakeMessagesAPI stands in for the Messages API: every request gets a short
// streamed text answer, and every request body is kept.
type fakeMessagesAPI struct {
	*httptest.Server
	t *testing.T

	mu     sync.Mutex
	bodies [][]byte
	before func() error
}

func newFakeMessagesAPI(t *testing.T) *fakeMessagesAPI {
	api := &fakeMessagesAPI{t: t}
	api.Server = httptest.NewServer(http.HandlerFunc(api.serve))
	t.Cleanup(api.Close)
	return api
}

// beforeFirstAnswer runs f once, before the next request is answered: the
// hooks of that turn's prompt have run by then, its Stop hook not yet.
func (api *fakeMessagesAPI) beforeFirstAnswer(f func() error) {
	api.mu.Lock()
	defer api.mu.Unlock()
	api.before = f
}

type apiTurn struct {
	api   *fakeMessagesAPI
	start int
}

// turn marks where the requests of the next turn begin.
func (api *fakeMessagesAPI) turn() apiTurn {
	api.mu.Lock()
	defer api.mu.Unlock()
	return apiTurn{api, len(api.bodies)}
}

// valueSep separates the strings of a request in its text; no hook or
// client writes it.
const valueSep = "\x1e"

// texts are the requests of the turn as the model would read them: every
// string of the body, JSON escapes undone, separated by valueSep.
func (tu apiTurn) texts() []string {
	tu.api.mu.Lock()
	defer tu.api.mu.Unlock()
	var texts []string
	for _, body := range tu.api.bodies[tu.start:] {
		var doc any
		if err := json.Unmarshal(body, &doc); err != nil {
			texts = append(texts, string(body))
			continue
		}
		var b strings.Builder
		collectStrings(&b, doc)
		texts = append(texts, b.String())
	}
	return texts
}

func collectStrings(b *strings.Builder, v any) {
	switch v := v.(type) {
	case string:
		b.WriteString(v)
		b.WriteString(valueSep)
	case []any:
		for _, e := range v {
			collectStrings(b, e)
		}
	case map[string]any:
		for _, e := range v {
			collectStrings(b, e)
		}
	}
}

func (api *fakeMessagesAPI) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		http.NotFound(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	api.mu.Lock()
	api.bodies = append(api.bodies, body)
	n := len(api.bodies)
	before := api.before
	api.before = nil
	api.mu.Unlock()
	if before != nil {
		if err := before(); err != nil {
			api.t.Errorf("before answering request %d: %v", n, err)
		}
	}
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	json.Unmarshal(body, &req)
	text := fmt.Sprintf("stand-in reply %d", n)
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": fmt.Sprintf("msg_%d", n), "type": "message", "role": "assistant", "model": req.Model,
			"content":     []map[string]any{{"type": "text", "text": text}},
			"stop_reason": "end_turn", "stop_sequence": nil,
			"usage": map[string]int{"input_tokens": 10, "output_tokens": 5},
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	events := []struct {
		name string
		data map[string]any
	}{
		{"message_start", map[string]any{"type": "message_start", "message": map[string]any{
			"id": fmt.Sprintf("msg_%d", n), "type": "message", "role": "assistant", "model": req.Model,
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
			"usage": map[string]int{"input_tokens": 10, "output_tokens": 1},
		}}},
		{"content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}}},
		{"content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": text}}},
		{"content_block_stop", map[string]any{"type": "content_block_stop", "index": 0}},
		{"message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 5}}},
		{"message_stop", map[string]any{"type": "message_stop"}},
	}
	flusher, _ := w.(http.Flusher)
	for _, ev := range events {
		data, _ := json.Marshal(ev.data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.name, data)
		if flusher != nil {
			flusher.Flush()
		}
	}
}

// installClaudeCode returns the native claude binary, installed from the npm
// registry into a cache shared by test runs, once.
func installClaudeCode(t *testing.T) string {
	t.Helper()
	platform, ok := map[string]string{
		"linux/amd64": "linux-x64", "linux/arm64": "linux-arm64",
		"darwin/amd64": "darwin-x64", "darwin/arm64": "darwin-arm64",
	}[runtime.GOOS+"/"+runtime.GOARCH]
	if !ok {
		t.Skipf("no Claude Code build for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("no cache folder to install Claude Code into: %v", err)
	}
	dir := filepath.Join(cache, "switchboard-test", "claude-code-"+claudeCodeVersion)
	if binary, ok := nativeClaude(dir, platform); ok {
		return binary
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skipf("npm is not installed, so the real Claude Code client cannot be installed: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	// Test binaries of several packages, or -count runs, may get here at
	// once: one installs, the others wait and find it done.
	lock, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if binary, ok := nativeClaude(dir, platform); ok {
		return binary
	}
	// An install cut short must not look finished: build it aside, then
	// rename it into place.
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// npm's default retries take over a minute to give up on an
	// unreachable registry; one quick retry rides out a hiccup.
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--ignore-scripts", "--no-save",
		"--fetch-retries=1", "--fetch-retry-mintimeout=2000", "--fetch-retry-maxtimeout=10000",
		"--prefix", tmp, "@anthropic-ai/claude-code@"+claudeCodeVersion)
	cmd.Dir = tmp
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Skipf("npm registry unreachable, or the install failed, so the real Claude Code client is not available: %v\n%s", err, npmErrors(out))
	}
	t.Logf("installed Claude Code %s from npm in %v", claudeCodeVersion, time.Since(start).Round(time.Second))
	if _, ok := nativeClaude(tmp, platform); !ok {
		t.Skipf("npm installed Claude Code without its native binary for %s (package @anthropic-ai/claude-code-%s):\n%s", platform, platform, npmErrors(out))
	}
	os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		t.Fatal(err)
	}
	binary, _ := nativeClaude(dir, platform)
	return binary
}

// nativeClaude finds the client's native binary in an npm prefix. The
// package's own bin/claude.exe is a stub until its postinstall script,
// which the install skips, copies the binary over it; npm picks the musl
// build on musl systems.
func nativeClaude(prefix, platform string) (string, bool) {
	for _, pkg := range []string{platform, platform + "-musl"} {
		path := filepath.Join(prefix, "node_modules", "@anthropic-ai", "claude-code-"+pkg, "claude")
		if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return path, true
		}
	}
	return "", false
}

// npmErrors is the gist of npm's output: its error lines without the stack
// trace, or its last lines when it printed none.
func npmErrors(out []byte) string {
	var errs, all []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		all = append(all, line)
		if strings.HasPrefix(line, "npm error") && !strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(line, "npm error")), "at ") {
			errs = append(errs, line)
		}
	}
	if len(errs) == 0 {
		errs = all[max(0, len(all)-10):]
	}
	return strings.Join(errs[:min(len(errs), 8)], "\n")
}
