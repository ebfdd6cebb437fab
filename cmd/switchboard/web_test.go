package main

import (
	"bufio"
	"io"
	"net/http"
	"net/url"
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

	address := serveWeb(t, root, "127.0.0.1:0")
	answer := promptHook(t, root, "h1", "make build")
	if err := chromedp.Do(tab, chromedp.Navigate(address.String())); err != nil {
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

// serveWeb runs switchboard web --listen listen in the workspace at root,
// until the test ends, and returns the address it prints first.
func serveWeb(t *testing.T, root, listen string) *url.URL {
	t.Helper()
	serve := exec.Command("switchboard", "web", "--listen", listen)
	serve.Env = append(os.Environ(), "SWITCHBOARD_ROOT="+root, "SWITCHBOARD_AGENT=", "TMUX=")
	out, err := serve.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { serve.Process.Kill(); serve.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("switchboard web --listen %s printed %q (%v); want its address first", listen, line, err)
	}
	address, err := url.Parse(strings.TrimSpace(line))
	if err != nil || address.Scheme != "http" || address.Path != "/" {
		t.Fatalf("switchboard web --listen %s printed %q (%v); want http://HOST:PORT/#token=...", listen, line, err)
	}
	return address
}

// TestWebAnswersTheAddressItPrints: on any loopback address it is given,
// switchboard web prints an address whose token follows a # (no server is
// sent it), and that address answers: the page without the token, the
// API with it in the Authorization header, and 401 without or with
// another.
func TestWebAnswersTheAddressItPrints(t *testing.T) {
	root := t.TempDir()
	if _, err := profile.WriteDefaultTeam(root, false); err != nil {
		t.Fatal(err)
	}
	for _, listen := range []string{"127.0.0.1:0", "127.0.0.2:0", "localhost:0"} {
		address := serveWeb(t, root, listen)
		token, ok := strings.CutPrefix(address.Fragment, "token=")
		if !ok || len(token) < 32 || address.RawQuery != "" {
			t.Errorf("--listen %s printed %s; want the token after #token= alone", listen, address)
			continue
		}
		get := func(path, token string) (int, string) {
			req, err := http.NewRequest("GET", address.Scheme+"://"+address.Host+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("--listen %s: %v", listen, err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(body)
		}
		if status, body := get("/", ""); status != http.StatusOK || !strings.Contains(body, "switchboard") {
			t.Errorf("--listen %s: GET %s: %d %q; want the page", listen, address.Host, status, body)
		}
		if status, body := get("/api/agents", token); status != http.StatusOK || !strings.Contains(body, "developer_agent") {
			t.Errorf("--listen %s: the API with the token: %d %q; want the team", listen, status, body)
		}
		for _, wrong := range []string{"", strings.Repeat("0", len(token))} {
			if status, _ := get("/api/agents", wrong); status != http.StatusUnauthorized {
				t.Errorf("--listen %s: the API with the token %q: %d; want 401", listen, wrong, status)
			}
		}
	}
}
