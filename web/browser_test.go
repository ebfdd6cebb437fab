package web

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"switchboard/console"
	"switchboard/desk"
	"switchboard/mailbox"
)

// chromium finds Debian's headless browser, or skips the test saying how
// to install it (CI installs it).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	t.Skip("no chromium here: install it (apt-get install -y chromium) to run the web view in a real browser")
	return ""
}

// liveTeam is a snapshot the test changes, as the team would.
type liveTeam struct {
	mu   sync.Mutex
	snap *console.Snapshot
}

func (l *liveTeam) read(context.Context) (*console.Snapshot, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	copy := *l.snap
	return &copy, nil
}

func (l *liveTeam) change(f func(s *console.Snapshot)) {
	l.mu.Lock()
	f(l.snap)
	l.mu.Unlock()
}

// TestTheWebViewInABrowser: the page loads with the token and shows the
// team; a state change and a new log line show within a second of the
// change; a permission question is answered allow with a click.
func TestTheWebViewInABrowser(t *testing.T) {
	path := chromium(t)
	if testing.Short() {
		t.Skip("starts a browser; skipped with -short")
	}
	now := time.Now()
	request := &mailbox.Message{ID: "01a2-permission", From: "reviewer_agent-1", To: []string{mailbox.Operator}, Title: "[PERMISSION] Bash: npm test", Type: mailbox.TypeRequest}
	team := &liveTeam{snap: &console.Snapshot{At: now, Status: "normal", Agents: []console.Agent{
		{Member: desk.Member{Name: "developer_agent", State: mailbox.StateIdle}},
		{Member: desk.Member{Name: "reviewer_agent-1", State: mailbox.StateBusy, Parent: "developer_agent"}, Depth: 1},
	}, Log: []mailbox.Record{{Seq: 1, Time: now, Status: mailbox.StatusDelivered, Delivered: []string{"reviewer_agent-1"}, Message: &mailbox.Message{From: "developer_agent", To: []string{"reviewer_agent-1"}, Title: "Review auth.go"}}}}}
	acts := &fakeActions{}
	changes := make(chan struct{})
	s := New(Config{Read: team.read, Act: acts, Changes: changes, Token: token})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	go s.Run(ctx)
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.Flag("disable-gpu", true), chromedp.Flag("disable-dev-shm-usage", true))
	alloc, stopAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer stopAlloc()
	browser, stopBrowser := chromedp.NewContext(alloc)
	defer stopBrowser()
	// shows waits, up to within, for an element's text to hold text.
	shows := func(selector, text string, within time.Duration) error {
		_, err := chromedp.Run(browser, chromedp.Poll[bool](fmt.Sprintf("document.querySelector(%q)?.innerText.includes(%q)", selector, text),
			chromedp.WithPollingTimeout(within), chromedp.WithPollingInterval(20*time.Millisecond)))
		return err
	}
	if err := chromedp.Do(browser, chromedp.Navigate(srv.URL+"/?token="+token)); err != nil {
		t.Fatalf("open the page: %v", err)
	}
	if err := shows("#agents", "reviewer_agent-1", 10*time.Second); err != nil {
		t.Fatalf("the page with the token did not show the team: %v", err)
	}
	// The helper asks the person: its state, the log line and the question
	// show within a second of the change.
	team.change(func(s *console.Snapshot) {
		s.Agents[1].Asking = 1
		s.Requests = []console.Request{{Seq: 2, ID: request.ID, From: request.From, To: request.To, Title: request.Title, Options: []string{"allow", "deny", "always", "never"}, Time: now, Permission: true}}
		s.Log = append(s.Log, mailbox.Record{Seq: 2, Time: now, Status: mailbox.StatusDelivered, Delivered: request.To, Message: request})
	})
	changes <- struct{}{}
	for _, want := range [][2]string{{"#agents", "asks you"}, {"#log", "[PERMISSION] Bash: npm test"}, {"#questions", "npm test"}} {
		if err := shows(want[0], want[1], time.Second); err != nil {
			t.Fatalf("%q did not show in %s within a second of the change: %v", want[1], want[0], err)
		}
	}
	if shot, err := chromedp.Run(browser, chromedp.FullScreenshot(90)); err == nil {
		os.WriteFile(filepath.Join(t.ArtifactDir(), "web-view.jpg"), shot, 0o644)
	}
	if err := chromedp.Do(browser, chromedp.Click("#questions li button")); err != nil {
		t.Fatalf("click allow: %v", err)
	}
	if err := shows("#said", "answered #2: allow", 5*time.Second); err != nil {
		t.Fatalf("the click did not answer: %v", err)
	}
	if len(acts.done) != 1 || acts.done[0] != "answer 01a2-permission allow" {
		t.Errorf("actions after the click: %q", acts.done)
	}
}
