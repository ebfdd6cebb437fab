package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"switchboard/conversation"
	"switchboard/desk"
	"switchboard/internal/clientusage"
	"switchboard/internal/testkit/browser"
	"switchboard/lifecycle/worktree"
	"switchboard/mailbox"
)

// liveTeam is a snapshot the test changes, as the team would.
type liveTeam struct {
	mu   sync.Mutex
	snap *desk.Snapshot
}

func (l *liveTeam) read(context.Context) (*desk.Snapshot, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	copy := *l.snap
	return &copy, nil
}

func (l *liveTeam) change(f func(s *desk.Snapshot)) {
	l.mu.Lock()
	f(l.snap)
	l.mu.Unlock()
}

// recorder keeps every request a server was sent, whole but its body.
type recorder struct {
	mu   sync.Mutex
	seen []string
}

func (rec *recorder) record(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dump, _ := httputil.DumpRequest(r, false)
		rec.mu.Lock()
		rec.seen = append(rec.seen, string(dump))
		rec.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (rec *recorder) requests() []string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return slices.Clone(rec.seen)
}

// opened is the web view of a team, served and open in a headless
// chromium.
type opened struct {
	tab     context.Context
	url     string // the server's, without the token
	team    *liveTeam
	acts    *fakeActions
	changes chan struct{}
	served  *recorder // every request the web view was sent
}

// open serves the web view of snap and opens the address switchboard web
// prints, its token after the #, in a headless chromium (the test skips
// without one, and with -short); the page shows first of all the first
// agent.
func open(t *testing.T, snap *desk.Snapshot) *opened {
	t.Helper()
	tab := browser.New(t)
	o := &opened{tab: tab, team: &liveTeam{snap: snap}, acts: &fakeActions{}, changes: make(chan struct{}), served: &recorder{}}
	s := New(Config{Read: o.team.read, Graph: graph, Act: o.acts, Changes: o.changes, Token: token})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go s.Run(ctx)
	srv := httptest.NewServer(o.served.record(s.Handler()))
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() }) // the page's event stream stays open
	o.url = srv.URL
	if err := chromedp.Do(tab, chromedp.Navigate(srv.URL+"/#token="+token)); err != nil {
		t.Fatalf("open the page: %v", err)
	}
	if err := browser.Shows(tab, "#agents", snap.Agents[0].Name, 10*time.Second); err != nil {
		t.Fatalf("the page with the token: %v", err)
	}
	return o
}

// holds waits, up to within, until the script's value is true.
func holds(tab context.Context, script string, within time.Duration) error {
	_, err := chromedp.Run(tab, chromedp.Poll[bool](script, chromedp.WithPollingTimeout(within), chromedp.WithPollingInterval(20*time.Millisecond)))
	if err != nil {
		return fmt.Errorf("%s did not hold within %s: %w", script, within, err)
	}
	return nil
}

// evaluate is the script's value in the tab.
func evaluate[T any](t *testing.T, tab context.Context, script string) T {
	t.Helper()
	v, err := chromedp.Run(tab, chromedp.Evaluate[T](script, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	return v
}

// twoAgents is a team of a developer and its reviewer, and one message.
func twoAgents(now time.Time) *desk.Snapshot {
	return &desk.Snapshot{At: now, Status: "normal", Agents: []desk.AgentSummary{
		{Member: desk.Member{Name: "developer_agent", State: conversation.Idle, Host: "laptop",
			Worktree: &desk.TreeSummary{Branch: "switchboard/developer_agent", Changes: worktree.Changes{Added: 3, Deleted: 1}}}},
		{Member: desk.Member{Name: "reviewer_agent-1", State: conversation.Busy, Parent: "developer_agent"}, Depth: 1},
	}, Log: []mailbox.Record{{Seq: 1, Time: now, Status: mailbox.StatusDelivered, Delivered: []string{"reviewer_agent-1"}, Message: &mailbox.Message{From: "developer_agent", To: []string{"reviewer_agent-1"}, Title: "Review auth.go"}}}}
}

// TestTheWebViewInABrowser: the page loads with the token and shows the
// team; a state change and a new log line show within a second of the
// change; a permission question is answered allow with a click.
func TestTheWebViewInABrowser(t *testing.T) {
	now := time.Now()
	o := open(t, twoAgents(now))
	request := &mailbox.Message{ID: "01a2-permission", From: "reviewer_agent-1", To: []string{mailbox.Operator}, Title: "[PERMISSION] Bash: npm test", Type: mailbox.TypeRequest}
	shows := func(selector, text string, within time.Duration) error {
		return browser.Shows(o.tab, selector, text, within)
	}
	if err := shows("#agents", "developer_agent @laptop +3/-1", time.Second); err != nil {
		t.Errorf("the developer's host and worktree: %v", err)
	}
	// A tree that had no git run in it says so, not how much changed.
	o.team.change(func(s *desk.Snapshot) { s.Agents[0].Worktree.Refused = "its .git points elsewhere" })
	o.changes <- struct{}{}
	if err := shows("#agents", "developer_agent @laptop REFUSED", time.Second); err != nil {
		t.Errorf("a refused worktree: %v", err)
	}
	o.team.change(func(s *desk.Snapshot) { s.Agents[0].Worktree.Refused = "" })
	// What an agent spent today sits beside it.
	o.team.change(func(s *desk.Snapshot) {
		s.Agents[0].Today = &desk.AgentUsage{Tokens: clientusage.Tokens{In: 12000, Out: 6000, CacheRead: 200}, Cost: 0.052}
	})
	o.changes <- struct{}{}
	if err := shows("#agents", "18.2k $0.05", time.Second); err != nil {
		t.Errorf("what the developer spent today: %v", err)
	}
	if err := shows("#rules", "tester_agent", 20*time.Second); err != nil {
		t.Errorf("the rules graph: %v", err)
	}
	// The helper asks the person: its state, the log line and the question
	// show within a second of the change.
	o.team.change(func(s *desk.Snapshot) {
		s.Agents[1].Asking = 1
		s.Requests = []desk.OpenRequest{{Seq: 2, ID: request.ID, From: request.From, To: request.To, Title: request.Title, Options: mailbox.PermissionOptions(), Time: now,
			Permission: &mailbox.Permission{Agent: request.From, Tool: "Bash", Command: "npm test", Rule: "npm *"}, Covers: "Bash(npm *)"}}
		s.Log = append(s.Log, mailbox.Record{Seq: 2, Time: now, Status: mailbox.StatusDelivered, Delivered: request.To, Message: request})
	})
	o.changes <- struct{}{}
	for _, want := range [][2]string{{"#agents", "asks you"}, {"#log", "[PERMISSION] Bash: npm test"}, {"#questions", "npm test"}} {
		if err := shows(want[0], want[1], time.Second); err != nil {
			t.Fatalf("after the change: %v", err)
		}
	}
	if shot, err := chromedp.Run(o.tab, chromedp.FullScreenshot(100)); err == nil {
		os.WriteFile(filepath.Join(t.ArtifactDir(), "web-view.png"), shot, 0o644)
	}
	if err := browser.ClickUntil(o.tab, "#questions li button", "#said", "answered #2: allow", 20*time.Second); err != nil {
		t.Fatalf("the click did not answer: %v", err)
	}
	if done := o.acts.actions(); len(done) != 1 || done[0] != "answer 01a2-permission allow" {
		t.Errorf("actions after the click: %q", done)
	}
}

// TestTheTokenGoesToItsOwnServerAlone: the page takes the token out of
// the address bar; the web view never sees it in an address or a cookie;
// the same browser, sent on to another server on 127.0.0.1 (an agent's
// dev server, say), sends that server no token in any cookie, header or
// address. Back on the web view the tab still reads the team, but only
// the page's own calls carry the token: a request of the browser alone
// is refused, and a guessed token reads nothing.
func TestTheTokenGoesToItsOwnServerAlone(t *testing.T) {
	o := open(t, twoAgents(time.Now()))
	if at, err := chromedp.Run(o.tab, chromedp.Location()); err != nil || at != o.url+"/" {
		t.Errorf("the address bar says %q (%v); want %s/, the token taken out", at, err, o.url)
	}
	devServer := &recorder{}
	other := httptest.NewServer(devServer.record(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>dev server</title><p id="here">an agent's dev server</p>`)
	})))
	defer other.Close()
	if !strings.HasPrefix(other.URL, "http://127.0.0.1:") || other.URL == o.url {
		t.Fatalf("the other server is at %s; want another port of 127.0.0.1 than %s", other.URL, o.url)
	}
	if err := chromedp.Do(o.tab, chromedp.Navigate(other.URL+"/app")); err != nil {
		t.Fatalf("go to the other server: %v", err)
	}
	if err := browser.Shows(o.tab, "#here", "dev server", 20*time.Second); err != nil {
		t.Fatal(err)
	}
	seen := devServer.requests()
	if len(seen) == 0 {
		t.Fatal("the other server saw no request")
	}
	for _, r := range seen {
		if strings.Contains(r, token) || strings.Contains(strings.ToLower(r), "\ncookie:") {
			t.Errorf("the other server was sent the token or a cookie:\n%s", r)
		}
	}

	if err := chromedp.Do(o.tab, chromedp.Navigate(o.url+"/")); err != nil {
		t.Fatal(err)
	}
	if err := browser.Shows(o.tab, "#agents", "reviewer_agent-1", 20*time.Second); err != nil {
		t.Errorf("the tab opened again without the token in its address: %v", err)
	}
	if status := evaluate[int](t, o.tab, `fetch("/api/snapshot").then((r) => r.status)`); status != http.StatusUnauthorized {
		t.Errorf("a request of the browser without the page's header: %d; want 401", status)
	}
	for _, r := range o.served.requests() {
		line, head, _ := strings.Cut(r, "\n")
		if strings.Contains(line, token) || strings.Contains(strings.ToLower(head), "\ncookie:") {
			t.Errorf("the web view was sent the token in its address, or a cookie:\n%s", r)
		}
	}

	// Another tab has a storage of its own: with a guessed token, or none,
	// it reads nothing and says what to do.
	for address, says := range map[string]string{
		o.url + "/#token=s3cret-tokem": "the token is refused",
		o.url + "/":                    "this tab has no token",
	} {
		tab, closeTab := chromedp.NewContext(o.tab)
		if err := chromedp.Do(tab, chromedp.Navigate(address)); err != nil {
			t.Fatal(err)
		}
		if err := browser.Shows(tab, "#said", says, 20*time.Second); err != nil {
			t.Errorf("%s: %v", address, err)
		}
		if rows := evaluate[int](t, tab, `document.querySelectorAll("#agents tbody tr").length`); rows != 0 {
			t.Errorf("%s shows %d agents; want none", address, rows)
		}
		closeTab()
	}
}

// TestTheDialogsSayWhatEachButtonDoes: cancel asks in the page, not in a
// prompt() whose "Cancel" would mean the opposite of cancel: its buttons
// say "Cancel the agent's work" and "Keep working"; keeping (the button,
// or Escape) does nothing, and the reason typed goes with the cancel.
// Send asks for a title and a content, and both are sent.
func TestTheDialogsSayWhatEachButtonDoes(t *testing.T) {
	o := open(t, twoAgents(time.Now()))
	row := `#agents tr[data-agent="reviewer_agent-1"] button`
	cancel, send := row+":nth-child(3)", row+":nth-child(1)"
	opens := func(button, heading string) {
		t.Helper()
		if err := browser.ClickUntil(o.tab, button, "#act-heading", heading, 10*time.Second); err != nil {
			t.Fatal(err)
		}
		if err := holds(o.tab, `document.querySelector("#act").open`, 10*time.Second); err != nil {
			t.Fatalf("the dialog %q: %v", heading, err)
		}
	}
	closed := func() {
		t.Helper()
		if err := holds(o.tab, `!document.querySelector("#act").open`, 10*time.Second); err != nil {
			t.Fatal(err)
		}
	}

	opens(cancel, "Cancel reviewer_agent-1's work")
	buttons := evaluate[[]string](t, o.tab, `[...document.querySelectorAll("#act button")].map((b) => b.textContent)`)
	if !slices.Equal(buttons, []string{"Cancel the agent's work", "Keep working"}) {
		t.Errorf("the cancel dialog's buttons: %q", buttons)
	}
	if err := chromedp.Do(o.tab, chromedp.SendKeys("#act-fields input", "a reason not sent"), chromedp.Click("#act-keep")); err != nil {
		t.Fatal(err)
	}
	closed()
	opens(cancel, "Cancel reviewer_agent-1's work")
	if err := chromedp.Do(o.tab, chromedp.SendKeys("#act-fields input", kb.Escape)); err != nil {
		t.Fatal(err)
	}
	closed()
	opens(cancel, "Cancel reviewer_agent-1's work")
	if err := chromedp.Do(o.tab, chromedp.SendKeys("#act-fields input", "wrong branch"), chromedp.Click("#act-do")); err != nil {
		t.Fatal(err)
	}
	if err := browser.Shows(o.tab, "#said", "cancelled reviewer_agent-1", 20*time.Second); err != nil {
		dialog := evaluate[string](t, o.tab, `JSON.stringify({open: document.querySelector("#act").open, returned: document.querySelector("#act").returnValue,
			fields: [...document.querySelectorAll("#act-fields input")].map((i) => i.value)})`)
		t.Fatalf("%v; the dialog: %s", err, dialog)
	}

	opens(send, "Send to reviewer_agent-1")
	if err := chromedp.Do(o.tab, chromedp.SendKeys("#act-fields input", "Look at the retry loop"),
		chromedp.SendKeys("#act-fields textarea", "client.go, line 80"), chromedp.Click("#act-do")); err != nil {
		t.Fatal(err)
	}
	if err := browser.Shows(o.tab, "#said", "sent to reviewer_agent-1", 20*time.Second); err != nil {
		t.Fatal(err)
	}
	want := []string{"cancel reviewer_agent-1: wrong branch", "send reviewer_agent-1: Look at the retry loop / client.go, line 80"}
	if done := o.acts.actions(); !slices.Equal(done, want) {
		t.Errorf("actions: %q; want %q (nothing for the dialogs kept)", done, want)
	}
}

// TestThePageKeepsToA1400PixelWindow: with titles as long as a message's
// may be (the demo's, and 200 characters with a word longer than a
// column), the page is no wider than a 1400-pixel window; a log line says
// its number once, and its time on a 24-hour clock as switchboard log
// does.
func TestThePageKeepsToA1400PixelWindow(t *testing.T) {
	afternoon := time.Date(2026, 11, 26, 14, 5, 9, 0, time.Local)
	// A title is at most 200 characters; a path is a word longer than
	// any column.
	path := "internal/auth/" + strings.Repeat("session_store_", 5) + "test.go"
	long := strings.Repeat("Bug from testing: empty passwords accepted, ", 4)[:199-len(path)] + " " + path
	if len(long) != mailbox.MaxTitleLength {
		t.Fatalf("the long title is %d characters; want %d", len(long), mailbox.MaxTitleLength)
	}
	snap := twoAgents(afternoon)
	for i := range snap.Agents {
		a := &snap.Agents[i]
		a.Task = "Code review request for login feature: " + path
		a.LastIn = &desk.MessageLine{Time: afternoon, Who: "tester_agent", Title: long}
		a.LastOut = &desk.MessageLine{Time: afternoon, Who: "master_agent", Title: long}
	}
	snap.Requests = []desk.OpenRequest{{Seq: 7, ID: "01a3", From: "reviewer_agent-1", To: []string{mailbox.Operator}, Title: long, Options: []string{"yes", "no"}, Time: afternoon}}
	snap.Log = append(snap.Log, mailbox.Record{Seq: 2, Time: afternoon, Status: mailbox.StatusDelivered, Delivered: []string{"developer_agent"}, Message: &mailbox.Message{From: "tester_agent", To: []string{"developer_agent"}, Title: long}})
	o := open(t, snap)
	if err := chromedp.Do(o.tab, chromedp.EmulateViewport(1400, 900)); err != nil {
		t.Fatal(err)
	}
	if err := browser.Shows(o.tab, "#log", "#2 2026-11-26 14:05:09 tester_agent → developer_agent: Bug from testing", 20*time.Second); err != nil {
		t.Errorf("a log line, one number and a 24-hour clock: %v", err)
	}
	if marker := evaluate[string](t, o.tab, `getComputedStyle(document.querySelector("#log li")).listStyleType`); marker != "none" {
		t.Errorf("a log line is numbered by the list too (list-style-type %q)", marker)
	}
	if shot, err := chromedp.Run(o.tab, chromedp.FullScreenshot(100)); err == nil {
		os.WriteFile(filepath.Join(t.ArtifactDir(), "web-view-1400.png"), shot, 0o644)
	}
	width := evaluate[[]int](t, o.tab, `[document.documentElement.scrollWidth, window.innerWidth]`)
	if width[1] != 1400 || width[0] > width[1] {
		t.Errorf("the page is %d pixels wide in a window of %d; want no wider than the window", width[0], width[1])
	}
}

// TestThePageTellsAnAgeUntilAMinuteThenTheTime: a message 58 s old shows
// its age, which the page draws anew each second without asking the
// server; once a minute old it shows its time, and the page's clock stops.
func TestThePageTellsAnAgeUntilAMinuteThenTheTime(t *testing.T) {
	now := time.Now()
	snap := twoAgents(now)
	sent := now.Add(-58 * time.Second)
	snap.Agents[0].LastIn = &desk.MessageLine{Seq: 1, Who: "operator", Title: "Rebase on main", Time: sent}
	o := open(t, snap)
	if err := browser.Shows(o.tab, "#agents", "s Rebase on main", 20*time.Second); err != nil {
		t.Fatalf("the message's age: %v", err)
	}
	if err := browser.Shows(o.tab, "#agents", sent.Format("15:04")+" Rebase on main", 10*time.Second); err != nil {
		t.Fatalf("a minute on, the message's time: %v", err)
	}
	if !evaluate[bool](t, o.tab, "ticking === null && !young") {
		t.Error("the page's clock still runs with every age over a minute")
	}
	asked := 0
	for _, r := range o.served.requests() {
		if strings.HasPrefix(r, "GET /api/snapshot") {
			asked++
		}
	}
	if asked != 1 {
		t.Errorf("the page read the team %d times; want once: its clock draws the same snapshot again", asked)
	}
}
