package web

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"switchboard/console"
	"switchboard/desk"
	"switchboard/mailbox"
	"switchboard/rules"
)

type fakeActions struct{ done []string }

func (f *fakeActions) Answer(id, option string) error {
	f.done = append(f.done, "answer "+id+" "+option)
	return nil
}
func (f *fakeActions) Interrupt(agent, reason string) error {
	if agent == "master_agent" {
		return &desk.RightError{Msg: "operator may not interrupt master_agent"}
	}
	f.done = append(f.done, "interrupt "+agent+": "+reason)
	return nil
}
func (f *fakeActions) Cancel(agent, reason string) error { return nil }
func (f *fakeActions) Close(agent string) error          { return nil }
func (f *fakeActions) Send(to, title string) error       { return nil }
func (f *fakeActions) Jump(agent string) error           { return nil }

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
	snap := &console.Snapshot{At: time.Now(), Status: "normal", Agents: []console.Agent{
		{Member: desk.Member{Name: "developer_agent", State: mailbox.StateBusy, Unread: 2}},
		{Member: desk.Member{Name: "tester_agent", State: mailbox.StateIdle}},
	}}
	s := New(Config{Read: func(context.Context) (*console.Snapshot, error) { return snap, nil }, Graph: graph, Act: acts, Changes: changes, Token: token})
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

func TestEveryRequestNeedsTheToken(t *testing.T) {
	srv, _, _ := server(t)
	for _, path := range []string{"/", "/api/snapshot", "/api/agents", "/api/events", "/static/app.js"} {
		if resp := do(t, request(t, "GET", srv.URL+path, "")); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without the token: %d; want 401", path, resp.StatusCode)
		}
	}
	if resp := do(t, request(t, "GET", srv.URL+"/?token=wrong", "")); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong token: %d; want 401", resp.StatusCode)
	}
	// The address with the token sets the cookie, and sends the browser on
	// without the token in the address.
	resp := do(t, request(t, "GET", srv.URL+"/?token="+token, ""))
	cookie := resp.Header.Get("Set-Cookie")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" || !strings.Contains(cookie, TokenCookie+"="+token) || !strings.Contains(cookie, "HttpOnly") || !strings.Contains(cookie, "SameSite=Strict") {
		t.Fatalf("the first page: %d, Location %q, Set-Cookie %q", resp.StatusCode, resp.Header.Get("Location"), cookie)
	}
	page := do(t, request(t, "GET", srv.URL+"/", "", "Cookie", TokenCookie+"="+token))
	if page.StatusCode != http.StatusOK || !strings.Contains(page.Header.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Errorf("the page with the cookie: %d, CSP %q", page.StatusCode, page.Header.Get("Content-Security-Policy"))
	}
	var g rules.Graph
	if err := json.NewDecoder(do(t, request(t, "GET", srv.URL+"/api/rules", "", "Authorization", "Bearer "+token)).Body).Decode(&g); err != nil || len(g.Edges) != 2 || g.Edges[1].Reason != "through the reviewer" {
		t.Errorf("/api/rules: %+v, %v; want the graph", g, err)
	}
	agents := do(t, request(t, "GET", srv.URL+"/api/agents", "", "Authorization", "Bearer "+token))
	var members []desk.Member
	if err := json.NewDecoder(agents.Body).Decode(&members); err != nil || len(members) != 2 || members[0].Name != "developer_agent" || members[0].Unread != 2 {
		t.Errorf("/api/agents: %+v, %v; want the team as agents --json gives it", members, err)
	}
}

func TestAForeignHostIsRefused(t *testing.T) {
	srv, _, _ := server(t)
	req := request(t, "GET", srv.URL+"/api/agents", "", "Authorization", "Bearer "+token)
	req.Host = "attacker.example:80" // a name of another site, resolved here (DNS rebinding)
	if resp := do(t, req); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a foreign Host: %d; want 403", resp.StatusCode)
	}
}

func TestACrossOriginActionIsRefused(t *testing.T) {
	srv, acts, _ := server(t)
	body := `{"id":"01a2","option":"allow"}`
	cross := request(t, "POST", srv.URL+"/api/answer", body, "Cookie", TokenCookie+"="+token, "Sec-Fetch-Site", "cross-site", "Origin", "https://attacker.example")
	if resp := do(t, cross); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a cross-origin POST: %d; want 403", resp.StatusCode)
	}
	same := request(t, "POST", srv.URL+"/api/answer", body, "Cookie", TokenCookie+"="+token, "Sec-Fetch-Site", "same-origin", "Content-Type", "application/json")
	if resp := do(t, same); resp.StatusCode != http.StatusNoContent {
		t.Errorf("a same-origin POST: %d; want 204", resp.StatusCode)
	}
	if len(acts.done) != 1 || acts.done[0] != "answer 01a2 allow" {
		t.Errorf("actions: %q; want the same-origin answer alone", acts.done)
	}
	// A right the desk refuses is a 403 with its reason.
	resp := do(t, request(t, "POST", srv.URL+"/api/interrupt", `{"agent":"master_agent","reason":"x"}`, "Authorization", "Bearer "+token))
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("an interrupt the rules refuse: %d; want 403", resp.StatusCode)
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
