package web

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"switchboard/conversation"
	"switchboard/desk"
	"switchboard/rules"
)

// fakeActions records the actions done; the browser tests read it while
// the server's handlers append to it.
type fakeActions struct {
	mu   sync.Mutex
	done []string
}

func (f *fakeActions) did(action string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.done = append(f.done, action)
}

// actions returns the actions done so far.
func (f *fakeActions) actions() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.done)
}

func (f *fakeActions) Answer(id, option string) error {
	f.did("answer " + id + " " + option)
	return nil
}
func (f *fakeActions) Interrupt(agent, reason string) error {
	if agent == "master_agent" {
		return &desk.RightError{Msg: "operator may not interrupt master_agent"}
	}
	f.did("interrupt " + agent + ": " + reason)
	return nil
}
func (f *fakeActions) Cancel(agent, reason string) error {
	f.did("cancel " + agent + ": " + reason)
	return nil
}
func (f *fakeActions) Close(agent string) error {
	f.did("close " + agent)
	return nil
}
func (f *fakeActions) Send(to, title, content string) error {
	f.did("send " + to + ": " + title + " / " + content)
	return nil
}

const token = "s3cret-token"

// graph is the rules of a team of two, one direction forbidden.
func graph() (rules.Graph, error) {
	return rules.Graph{
		Nodes: []rules.Node{{Name: "developer_agent"}, {Name: "tester_agent"}},
		Edges: []rules.Edge{{From: "developer_agent", To: "tester_agent", Allowed: true}, {From: "tester_agent", To: "developer_agent", Reason: "through the reviewer"}},
	}, nil
}

// server is the web view of a team of two, and its fake desk.
func server(t *testing.T) (*httptest.Server, *fakeActions, chan struct{}) {
	t.Helper()
	acts := &fakeActions{}
	changes := make(chan struct{})
	snap := &desk.Snapshot{At: time.Now(), Status: "normal", Agents: []desk.AgentSummary{
		{Member: desk.Member{Name: "developer_agent", State: conversation.Busy, Unread: 2}},
		{Member: desk.Member{Name: "tester_agent", State: conversation.Idle}},
	}}
	s := New(Config{Read: func(context.Context) (*desk.Snapshot, error) { return snap, nil }, Graph: graph, Act: acts, Changes: changes, Token: token})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go s.Run(ctx)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return srv, acts, changes
}

func do(t *testing.T, req *http.Request) *http.Response {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func request(t *testing.T, method, url, body string, headers ...string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return req
}

// TestEveryCallOfTheAPINeedsTheToken: the API answers with the token in
// the Authorization header alone; a token missing or guessed, or carried
// in a cookie or the address, gets 401 and nothing of the team. The page
// and its files, which hold nothing of the team, are served without it,
// as a browser sends no header of its own on opening an address; and no
// answer sets a cookie, which would reach every server of the host.
func TestEveryCallOfTheAPINeedsTheToken(t *testing.T) {
	srv, _, _ := server(t)
	bearer := func(tok string) []string { return []string{"Authorization", "Bearer " + tok} }
	for _, path := range []string{"/api/snapshot", "/api/agents", "/api/events", "/api/rules"} {
		for name, headers := range map[string][]string{
			"no token":        nil,
			"a guessed token": bearer("s3cret-tokem"),
			"an empty token":  bearer(""),
			"a cookie":        {"Cookie", "switchboard_token=" + token},
			"a Basic header":  {"Authorization", "Basic " + token},
		} {
			resp := do(t, request(t, "GET", srv.URL+path, "", headers...))
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusUnauthorized || strings.Contains(string(body), "developer_agent") {
				t.Errorf("GET %s with %s: %d %q; want 401", path, name, resp.StatusCode, body)
			}
		}
	}
	for _, path := range []string{"/", "/static/app.js", "/static/style.css"} {
		resp := do(t, request(t, "GET", srv.URL+path, ""))
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Set-Cookie") != "" {
			t.Errorf("GET %s: %d, Set-Cookie %q; want 200 and no cookie", path, resp.StatusCode, resp.Header.Get("Set-Cookie"))
		}
	}
	page := do(t, request(t, "GET", srv.URL+"/", ""))
	if csp := page.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("the page's policy: %q", csp)
	}
	// An address of an earlier version, with the token in its query, says
	// why it no longer works instead of serving a page that cannot read.
	old := do(t, request(t, "GET", srv.URL+"/?token="+token, ""))
	if body, _ := io.ReadAll(old.Body); old.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "#token=") || old.Header.Get("Set-Cookie") != "" {
		t.Errorf("an address with ?token=: %d %q, Set-Cookie %q; want 400 saying the token follows a #", old.StatusCode, body, old.Header.Get("Set-Cookie"))
	}
	if resp := do(t, request(t, "GET", srv.URL+"/api/agents?token="+token, "")); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("the API with ?token=: %d; want 400", resp.StatusCode)
	}

	var g rules.Graph
	if err := json.NewDecoder(do(t, request(t, "GET", srv.URL+"/api/rules", "", bearer(token)...)).Body).Decode(&g); err != nil || len(g.Edges) != 2 || g.Edges[1].Reason != "through the reviewer" {
		t.Errorf("/api/rules: %+v, %v; want the graph", g, err)
	}
	agents := do(t, request(t, "GET", srv.URL+"/api/agents", "", bearer(token)...))
	var members []desk.Member
	if err := json.NewDecoder(agents.Body).Decode(&members); err != nil || len(members) != 2 || members[0].Name != "developer_agent" || members[0].Unread != 2 {
		t.Errorf("/api/agents: %+v, %v; want the team as agents --json gives it", members, err)
	}
}

// TestTheServerAnswersToItsOwnAddresses: any loopback address and
// localhost are this machine's, and a host configured is answered; a
// name of another site is refused, even when it resolves here.
func TestTheServerAnswersToItsOwnAddresses(t *testing.T) {
	srv, _, _ := server(t)
	for host, want := range map[string]int{
		"127.0.0.1:8377":       http.StatusOK,
		"127.0.0.2:8377":       http.StatusOK,
		"127.1.2.3":            http.StatusOK,
		"[::1]:8377":           http.StatusOK,
		"LOCALHOST:8377":       http.StatusOK,
		"attacker.example:80":  http.StatusForbidden, // a name of another site, resolved here (DNS rebinding)
		"localhost.example":    http.StatusForbidden,
		"10.0.0.5:8377":        http.StatusForbidden,
		"127.0.0.1.nip.io:80":  http.StatusForbidden,
		"switchboard.lan:8377": http.StatusForbidden,
	} {
		req := request(t, "GET", srv.URL+"/api/agents", "", "Authorization", "Bearer "+token)
		req.Host = host
		if resp := do(t, req); resp.StatusCode != want {
			t.Errorf("Host %s: %d; want %d", host, resp.StatusCode, want)
		}
	}
	configured := httptest.NewServer(New(Config{Read: nil, Graph: graph, Token: token, Hosts: []string{"switchboard.lan"}}).Handler())
	defer configured.Close()
	req := request(t, "GET", configured.URL+"/api/rules", "", "Authorization", "Bearer "+token)
	req.Host = "switchboard.lan:8377"
	if resp := do(t, req); resp.StatusCode != http.StatusOK {
		t.Errorf("a configured host: %d; want 200", resp.StatusCode)
	}
}

func TestACrossOriginActionIsRefused(t *testing.T) {
	srv, acts, _ := server(t)
	body := `{"id":"01a2","option":"allow"}`
	cross := request(t, "POST", srv.URL+"/api/answer", body, "Authorization", "Bearer "+token, "Sec-Fetch-Site", "cross-site", "Origin", "https://attacker.example")
	if resp := do(t, cross); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a cross-origin POST: %d; want 403", resp.StatusCode)
	}
	same := request(t, "POST", srv.URL+"/api/answer", body, "Authorization", "Bearer "+token, "Sec-Fetch-Site", "same-origin", "Content-Type", "application/json")
	if resp := do(t, same); resp.StatusCode != http.StatusNoContent {
		t.Errorf("a same-origin POST: %d; want 204", resp.StatusCode)
	}
	if done := acts.actions(); len(done) != 1 || done[0] != "answer 01a2 allow" {
		t.Errorf("actions: %q; want the same-origin answer alone", done)
	}
	// A right the desk refuses is a 403 with its reason.
	resp := do(t, request(t, "POST", srv.URL+"/api/interrupt", `{"agent":"master_agent","reason":"x"}`, "Authorization", "Bearer "+token))
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("an interrupt the rules refuse: %d; want 403", resp.StatusCode)
	}
}

// TestEachPostTakesItsOwnFields: a message sent carries its content; a
// field an endpoint does not take is refused with its name, not dropped;
// so is a body of more than one object.
func TestEachPostTakesItsOwnFields(t *testing.T) {
	srv, acts, _ := server(t)
	post := func(path, body string) (int, string) {
		resp := do(t, request(t, "POST", srv.URL+path, body, "Authorization", "Bearer "+token))
		text, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(text)
	}
	for _, ok := range [][2]string{
		{"/api/send", `{"agent":"tester_agent","title":"Run the suite","content":"go test ./...\nthen tell me"}`},
		{"/api/interrupt", `{"agent":"tester_agent","reason":"wrong branch"}`},
		{"/api/cancel", `{"agent":"tester_agent","reason":""}`},
		{"/api/close", `{"agent":"tester_agent"}`},
		{"/api/answer", `{"id":"01a2","option":"deny"}`},
	} {
		if status, text := post(ok[0], ok[1]); status != http.StatusNoContent {
			t.Errorf("POST %s %s: %d %q; want 204", ok[0], ok[1], status, text)
		}
	}
	want := []string{"send tester_agent: Run the suite / go test ./...\nthen tell me", "interrupt tester_agent: wrong branch", "cancel tester_agent: ", "close tester_agent", "answer 01a2 deny"}
	if done := acts.actions(); !slices.Equal(done, want) {
		t.Errorf("actions: %q; want %q", done, want)
	}
	for _, refused := range [][3]string{
		{"/api/answer", `{"id":"01a2","option":"allow","title":"why"}`, `"title"`},
		{"/api/close", `{"agent":"tester_agent","reason":"done"}`, `"reason"`},
		{"/api/send", `{"to":"tester_agent","title":"hi"}`, `"to"`},
		{"/api/send", `{"agent":"tester_agent","title":"hi"} {"agent":"developer_agent","title":"hi"}`, "more follows"},
		{"/api/cancel", `not json`, "invalid character"},
	} {
		if status, text := post(refused[0], refused[1]); status != http.StatusBadRequest || !strings.Contains(text, refused[2]) {
			t.Errorf("POST %s %s: %d %q; want 400 naming %s", refused[0], refused[1], status, text, refused[2])
		}
	}
	if done := acts.actions(); len(done) != len(want) {
		t.Errorf("a body refused was acted on: %q", done[len(want):])
	}
}

func TestTheEventStreamSaysWhenTheTeamChanged(t *testing.T) {
	srv, _, changes := server(t)
	resp := do(t, request(t, "GET", srv.URL+"/api/events", "", "Authorization", "Bearer "+token))
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	lines := bufio.NewScanner(resp.Body)
	next := func() string {
		for lines.Scan() {
			if l := lines.Text(); strings.HasPrefix(l, "event:") {
				return l
			}
		}
		return ""
	}
	if got := next(); got != "event: change" {
		t.Fatalf("the first event: %q", got)
	}
	go func() { changes <- struct{}{} }()
	got := make(chan string, 1)
	go func() { got <- next() }()
	select {
	case e := <-got:
		if e != "event: change" {
			t.Errorf("after a change: %q", e)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no event after a change")
	}
}
