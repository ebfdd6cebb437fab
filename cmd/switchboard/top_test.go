package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"switchboard/desk"
	"switchboard/internal/tmux"
	"switchboard/internal/watch"
	"switchboard/profile"
	"switchboard/workspace"
)

// TestTopInARealTerminal: switchboard top, in a real terminal (a tmux
// pane), shows the team and the question the master agent asked the
// person; the person answers it from the keyboard, and the asker gets the
// answer.
func TestTopInARealTerminal(t *testing.T) {
	if !tmux.Installed() {
		t.Skip("tmux is not installed: install it (apt-get install -y tmux) to run the console in a terminal")
	}
	if testing.Short() {
		t.Skip("runs the console in tmux; skipped with -short")
	}
	t.Parallel()
	root := t.TempDir()
	if _, err := profile.WriteDefaultTeam(root, false); err != nil {
		t.Fatal(err)
	}
	m := startMaster(t, root)
	defer m.stop(t)
	env := append(os.Environ(), "SWITCHBOARD_ROOT="+root, "SWITCHBOARD_AGENT=", "TMUX=")
	ask := exec.Command("switchboard", "ask", "--as", "master_agent", "--to", "operator", "--title", "May I deploy?", "--options", "yes,no", "--timeout", "90s")
	ask.Env = env
	var answer, said bytes.Buffer
	ask.Stdout, ask.Stderr = &answer, &said
	if err := ask.Start(); err != nil {
		t.Fatal(err)
	}
	asked := make(chan error, 1)
	go func() { asked <- ask.Wait() }()

	socket := fmt.Sprintf("sbtop-%d", os.Getpid())
	c := tmux.NewClient(socket, nil)
	ctx := context.Background()
	pane, err := c.NewSession(ctx, "top", "top", 120, 40, tmux.PaneSpec{Dir: root, Command: []string{"switchboard", "top", "--no-notify"},
		Env: map[string]string{"SWITCHBOARD_ROOT": root, "SWITCHBOARD_AGENT": "", "TERM": "xterm-256color"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.KillServer(context.Background())
	var screen string
	shows := func(want ...string) bool {
		return watch.Until(ctx, 50*time.Millisecond, 30*time.Second, func() bool {
			screen, _ = c.History(ctx, pane)
			for _, w := range want {
				if !strings.Contains(screen, w) {
					return false
				}
			}
			return true
		})
	}
	// The master agent's question waits for the person: it needs you.
	if !shows("4 agents · 1 need you", "developer_agent", "QUESTIONS WAITING (1)", "May I deploy?") {
		t.Fatalf("the console does not show the team and the question:\n%s", screen)
	}
	keys := func(keys ...string) {
		args := append([]string{"-L", socket, "-f", "/dev/null", "send-keys", "-t", pane}, keys...)
		if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
			t.Fatalf("send-keys %v: %v %s", keys, err, out)
		}
	}
	keys("Tab", "r")
	if !shows("answer #") {
		t.Fatalf("r on the question asks for no answer:\n%s", screen)
	}
	keys("-l", "yes")
	keys("Enter")
	select {
	case err := <-asked:
		if err != nil || strings.TrimSpace(answer.String()) != "yes" {
			t.Errorf("the asker got %q (%v, %s); want yes", answer.String(), err, said.String())
		}
	case <-time.After(30 * time.Second):
		screen, _ = c.History(ctx, pane)
		t.Fatalf("the answer did not reach the asker:\n%s", screen)
	}
	if !watch.Until(ctx, 50*time.Millisecond, 30*time.Second, func() bool {
		screen, _ = c.History(ctx, pane)
		return strings.Contains(screen, "May I deploy?") && !strings.Contains(screen, "QUESTIONS WAITING")
	}) {
		t.Errorf("the question answered is still shown as waiting:\n%s", screen)
	}
	keys("q")
}

// TestUpOpensTheConsoleInView: up starts the console in a window of its
// own, the one a person attaching sees, and it shows the team; with --web,
// up prints the address of the web view, which answers with the token and
// refuses without it.
func TestUpOpensTheConsoleInView(t *testing.T) {
	tm := newTeam(t) // skips without tmux, and with -short
	t.Parallel()
	out := tm.must("up", "-d", "--web", "--socket", tm.socket)
	defer tm.switchboard("down")
	address := regexp.MustCompile(`web view: (http://127\.0\.0\.1:\d+)/#token=([0-9a-f]+)`).FindStringSubmatch(out)
	if address == nil {
		t.Fatalf("up --web printed no address of the web view:\n%s", out)
	}
	get := func(token string) int {
		req, _ := http.NewRequest("GET", address[1]+"/api/agents", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("the web view: %v", err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if with, without := get(address[2]), get(""); with != http.StatusOK || without != http.StatusUnauthorized {
		t.Errorf("the web view answered %d with the token and %d without; want 200 and 401", with, without)
	}
	tmuxOut := func(args ...string) string {
		out, _ := exec.Command("tmux", append([]string{"-L", tm.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
		return strings.TrimSpace(string(out))
	}
	if got := tmuxOut("list-windows", "-t", "=switchboard", "-f", "#{window_active}", "-F", "#{window_name}"); got != "console" {
		t.Errorf("the window in view is %q; want console", got)
	}
	// The README lists the windows in their order.
	readme, _ := os.ReadFile(filepath.Join("..", "..", "README.md"))
	var listed []string
	for _, m := range regexp.MustCompile(`(?m)^- \*\*(\w+)\*\*`).FindAllStringSubmatch(string(readme), -1) {
		listed = append(listed, m[1])
	}
	made := slices.DeleteFunc(strings.Fields(tmuxOut("list-windows", "-t", "=switchboard", "-F", "#{window_name}")),
		func(w string) bool { return w == "web" }) // asked for here, with --web
	if !slices.Equal(listed, made) {
		t.Errorf("the README lists the windows %q; up makes them %q", listed, made)
	}
	tm.waitFor("the console showing the team", func() bool {
		screen := tmuxOut("capture-pane", "-p", "-t", "=switchboard:console")
		return strings.Contains(screen, "developer_agent") && strings.Contains(screen, "tester_agent")
	})
}

// oncePlainTeam is a workspace of the default team, with developer_agent-1
// spawned under developer_agent, as the one who runs commands here.
func oncePlainTeam(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if _, err := profile.WriteDefaultTeam(root, false); err != nil {
		t.Fatal(err)
	}
	err := workspace.New(root).UpdateSpawned(func(all map[string]workspace.Spawned) error {
		all["developer_agent-1"] = workspace.Spawned{Profile: "developer_agent", Parent: "developer_agent"}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("SWITCHBOARD_ROOT", root)
	t.Setenv("SWITCHBOARD_AGENT", "")
	t.Setenv("TMUX", "")
	t.Setenv("TMUX_PANE", "")
	return root
}

// TestTopOnceIsPlainAndShowsEveryColumn: top --once, in a terminal of 80
// columns, prints every agent and every column, without the cursor or the
// keys' help; --width still narrows it; --once --json prints the team as
// the console sees it.
func TestTopOnceIsPlainAndShowsEveryColumn(t *testing.T) {
	oncePlainTeam(t)
	top := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := run(append([]string{"top", "--once"}, args...), &streams{in: strings.NewReader(""), out: &out, errOut: &errOut, width: 80}); code != 0 {
			t.Fatalf("top --once %v: exit %d: %s", args, code, errOut.String())
		}
		return out.String()
	}
	frame := top()
	for _, want := range []string{"NEW", "URG", "TASK", "LAST IN", "LAST OUT", "LOCKS", "master_agent", "developer_agent", "└ ", "developer_agent-1", "reviewer_agent", "tester_agent"} {
		if !strings.Contains(frame, want) {
			t.Errorf("top --once shows no %q:\n%s", want, frame)
		}
	}
	for _, unwanted := range []string{"hidden", "▸", "tab panel", "q quit"} {
		if strings.Contains(frame, unwanted) {
			t.Errorf("top --once prints %q:\n%s", unwanted, frame)
		}
	}
	if narrow := top("--width", "72"); !strings.Contains(narrow, "+4 hidden") {
		t.Errorf("top --once --width 72 does not narrow the frame:\n%s", narrow)
	}
	var s desk.Snapshot
	if err := json.Unmarshal([]byte(top("--json")), &s); err != nil || len(s.Agents) != 5 {
		t.Errorf("top --once --json: %v, %d agents; want the team of 5", err, len(s.Agents))
	}
}

// TestTheConsolesCloseCheckIsTheDesks: the check the console makes before
// it asks to confirm a close refuses what desk.Close refuses, with the
// desk's words, and lets a helper through for the person.
func TestTheConsolesCloseCheckIsTheDesks(t *testing.T) {
	oncePlainTeam(t)
	for _, tc := range []struct{ as, agent string }{
		{"", "master_agent"},                  // of the rules: not spawned
		{"", "nobody"},                        // not an agent
		{"tester_agent", "developer_agent-1"}, // not its helper, and not an overseer
	} {
		g := &globals{as: tc.as}
		ws, _, err := openReading(g)
		if err != nil {
			t.Fatal(err)
		}
		team := newWatchedTeam(g, ws)
		checked := team.act.MayClose(tc.agent)
		_, closed := ws.desk().Close(context.Background(), tc.agent, false)
		team.folders.Close()
		if checked == nil || closed == nil || checked.Error() != closed.Error() {
			t.Errorf("--as %q closing %s: the console's check says %v, desk.Close %v; want the same refusal", tc.as, tc.agent, checked, closed)
		}
	}
	g := &globals{}
	ws, _, err := openReading(g)
	if err != nil {
		t.Fatal(err)
	}
	team := newWatchedTeam(g, ws)
	defer team.folders.Close()
	if err := team.act.MayClose("developer_agent-1"); err != nil {
		t.Errorf("the person may not close developer_agent-1: %v", err)
	}
}
