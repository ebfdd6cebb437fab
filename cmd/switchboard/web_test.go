package main

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"switchboard/internal/testkit/browser"
	"switchboard/mailbox"
	"switchboard/profile"
	"switchboard/workspace"
)

// TestAPermissionAnsweredInTheBrowserReachesTheHook: a helper of the
// person asks to run a command; the question shows in the web view, a
// click on allow answers it, and the helper's hook tells its client to
// allow the call.
func TestAPermissionAnsweredInTheBrowserReachesTheHook(t *testing.T) {
	tab := browser.New(t) // skips without chromium, and with -short
	root := t.TempDir()
	if _, err := profile.WriteDefaultTeam(root, false); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, root+"/agents/reviewer_agent.yaml", "kind: claude\ncommand: claude\napproval_timeout: 60s\n")
	ws := workspace.New(root)
	if err := ws.UpdateSpawned(func(all map[string]workspace.Spawned) error {
		all["h1"] = workspace.Spawned{Profile: "reviewer_agent", Parent: mailbox.Operator}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	m := startMaster(t, root)
	defer m.stop(t)

	serve := exec.Command("switchboard", "web")
	serve.Env = append(os.Environ(), "SWITCHBOARD_ROOT="+root, "SWITCHBOARD_AGENT=", "TMUX=")
	out, err := serve.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { serve.Process.Kill(); serve.Wait() }()
	address, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(address, "http://127.0.0.1:") {
		t.Fatalf("switchboard web printed %q (%v); want its address first", address, err)
	}

	answer := promptHook(t, root, "h1", "make build")
	if err := chromedp.Do(tab, chromedp.Navigate(strings.TrimSpace(address))); err != nil {
		t.Fatal(err)
	}
	if err := browser.Shows(tab, "#questions", "h1 wants to run Bash: make build", 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := browser.ClickUntil(tab, "#questions li button", "#said", "answered", 10*time.Second); err != nil {
		t.Fatalf("click allow: %v", err)
	}
	if behavior, _, _ := decisionOf(answer()); behavior != "allow" {
		t.Errorf("the helper's client was told %q; want allow", behavior)
	}
}
