package web

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"switchboard/console"
	"switchboard/desk"
	"switchboard/internal/testkit/browser"
	"switchboard/mailbox"
	"switchboard/worktree"
)

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
	tab := browser.New(t) // skips without chromium, and with -short
	now := time.Now()
	request := &mailbox.Message{ID: "01a2-permission", From: "reviewer_agent-1", To: []string{mailbox.Operator}, Title: "[PERMISSION] Bash: npm test", Type: mailbox.TypeRequest}
	team := &liveTeam{snap: &console.Snapshot{At: now, Status: "normal", Agents: []console.Agent{
		{Member: desk.Member{Name: "developer_agent", State: mailbox.StateIdle, Host: "laptop",
			Worktree: &desk.TreeSummary{Branch: "switchboard/developer_agent", Changes: worktree.Changes{Added: 3, Deleted: 1}}}},
		{Member: desk.Member{Name: "reviewer_agent-1", State: mailbox.StateBusy, Parent: "developer_agent"}, Depth: 1},
	}, Log: []mailbox.Record{{Seq: 1, Time: now, Status: mailbox.StatusDelivered, Delivered: []string{"reviewer_agent-1"}, Message: &mailbox.Message{From: "developer_agent", To: []string{"reviewer_agent-1"}, Title: "Review auth.go"}}}}}
	acts := &fakeActions{}
	changes := make(chan struct{})
	s := New(Config{Read: team.read, Graph: graph, Act: acts, Changes: changes, Token: token})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	go s.Run(ctx)
	srv := httptest.NewServer(s.Handler())
	defer func() { srv.CloseClientConnections(); srv.Close() }() // the page's event stream stays open

	shows := func(selector, text string, within time.Duration) error {
		return browser.Shows(tab, selector, text, within)
	}
	if err := chromedp.Do(tab, chromedp.Navigate(srv.URL+"/?token="+token)); err != nil {
		t.Fatalf("open the page: %v", err)
	}
	if err := shows("#agents", "reviewer_agent-1", 10*time.Second); err != nil {
		t.Fatalf("the page with the token: %v", err)
	}
	if err := shows("#agents", "developer_agent @laptop +3/-1", time.Second); err != nil {
		t.Errorf("the developer's host and worktree: %v", err)
	}
	if err := shows("#rules", "tester_agent", 5*time.Second); err != nil {
		t.Errorf("the rules graph: %v", err)
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
			t.Fatalf("after the change: %v", err)
		}
	}
	if shot, err := chromedp.Run(tab, chromedp.FullScreenshot(100)); err == nil {
		os.WriteFile(filepath.Join(t.ArtifactDir(), "web-view.png"), shot, 0o644)
	}
	if err := browser.ClickUntil(tab, "#questions li button", "#said", "answered #2: allow", 5*time.Second); err != nil {
		t.Fatalf("the click did not answer: %v", err)
	}
	if len(acts.done) != 1 || acts.done[0] != "answer 01a2-permission allow" {
		t.Errorf("actions after the click: %q", acts.done)
	}
}
