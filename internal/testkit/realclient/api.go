package realclient

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Request is one call a client made to its model API, as the stand-in saw it.
type Request struct {
	N    int    // its number, from 1, over the stand-in's life
	Path string // the URL path
	// Text is every string of the JSON body, JSON escapes undone, separated
	// by Sep: what the model would read.
	Text string
	// ToolOutput is the output of the tool call the model asked for last,
	// when this request carries it back; "" otherwise.
	ToolOutput string
	// AfterTool reports whether the request carries back a tool call's result.
	AfterTool bool
	// Tools reports whether the request offers the model tools: a client's
	// side requests (a title for the session, say) offer none.
	Tools bool
	// ToolNames are the names of the tools it offers.
	ToolNames []string
	Body      []byte
}

// Sep separates the strings of a request in Request.Text; no hook or client
// writes it.
const Sep = "\x1e"

// Offers reports whether the request offers the model the tool named.
func (r Request) Offers(tool string) bool { return slices.Contains(r.ToolNames, tool) }

// ToolSearch is Claude Code's tool that loads the tools it defers (those of
// MCP servers, and some of its own) into the model's list, by name.
const ToolSearch = "ToolSearch"

// Load is the call that loads deferred tools by name, for a client that
// defers them; ok is false when the request offers them all already.
func (r Request) Load(tools ...string) (Answer, bool) {
	var missing []string
	for _, tool := range tools {
		if !r.Offers(tool) {
			missing = append(missing, tool)
		}
	}
	if len(missing) == 0 || !r.Offers(ToolSearch) {
		return Answer{}, false
	}
	return Answer{Tool: ToolSearch, Input: map[string]any{"query": "select:" + strings.Join(missing, ","), "max_results": len(missing)}}, true
}

// Contains reports whether the request holds part.
func (r Request) Contains(part string) bool { return strings.Contains(r.Text, part) }

// Answer is what the stand-in model says: a text, or a shell command for the
// client's shell tool to run (then Text is ignored).
type Answer struct {
	Text    string
	Command string
	// Tool and Input call a tool by name instead (an MCP server's, as the
	// client names it to its model).
	Tool  string
	Input map[string]any
	// RateLimited refuses the request as the vendor's API does when the
	// account's rate or usage limit is reached (the Messages API's 429).
	RateLimited bool
}

// LimitResets is when the stand-ins say a limit they answer with resets,
// for a client that is told.
var LimitResets = time.Date(2030, 1, 2, 15, 4, 0, 0, time.UTC)

// A Responder decides the answer to a request.
type Responder func(Request) Answer

// TextReply answers every request with "stand-in reply N".
func TextReply(r Request) Answer { return Answer{Text: fmt.Sprintf("stand-in reply %d", r.N)} }

// api is what the stand-ins of the three vendors share: the requests kept,
// the responder, and a hook run before the next answer.
type api struct {
	*httptest.Server
	t testing.TB

	mu       sync.Mutex
	requests []Request
	respond  Responder
	before   func() error
}

func (a *api) start(t testing.TB, handler http.HandlerFunc) {
	a.t, a.respond = t, TextReply
	a.Server = httptest.NewServer(handler)
	t.Cleanup(a.Close)
}

// Respond sets how the stand-in answers from now on.
func (a *api) Respond(f Responder) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.respond = f
}

// BeforeNextAnswer runs f once, before the next request is answered: the
// hooks of the prompt that caused it have run by then, the end-of-turn hook
// not yet.
func (a *api) BeforeNextAnswer(f func() error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.before = f
}

// Mark is where the requests of the next turn begin.
func (a *api) Mark() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.requests)
}

// Since returns the requests made after mark.
func (a *api) Since(mark int) []Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Request(nil), a.requests[mark:]...)
}

// take records a request and returns the answer to give.
func (a *api) take(r *http.Request, toolOutput func(doc any) (string, bool)) (Request, Answer, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return Request{}, Answer{}, err
	}
	req := Request{Path: r.URL.Path, Body: body}
	var doc any
	if json.Unmarshal(body, &doc) == nil {
		var b strings.Builder
		collectStrings(&b, doc)
		req.Text = b.String()
		req.ToolOutput, req.AfterTool = toolOutput(doc)
		if body, ok := doc.(map[string]any); ok {
			tools, _ := body["tools"].([]any)
			req.Tools = len(tools) > 0
			for _, tool := range tools {
				if t, ok := tool.(map[string]any); ok {
					if name, ok := t["name"].(string); ok {
						req.ToolNames = append(req.ToolNames, name)
					}
				}
			}
		}
	} else {
		req.Text = string(body)
	}
	a.mu.Lock()
	req.N = len(a.requests) + 1
	a.requests = append(a.requests, req)
	before, respond := a.before, a.respond
	a.before = nil
	a.mu.Unlock()
	if before != nil {
		if err := before(); err != nil {
			a.t.Errorf("before answering request %d: %v", req.N, err)
		}
	}
	return req, respond(req), nil
}

func collectStrings(b *strings.Builder, v any) {
	switch v := v.(type) {
	case string:
		b.WriteString(v)
		b.WriteString(Sep)
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

// lastOf returns the last element of a JSON array, or nil.
func lastOf(v any) map[string]any {
	list, _ := v.([]any)
	if len(list) == 0 {
		return nil
	}
	m, _ := list[len(list)-1].(map[string]any)
	return m
}

// textOf joins the strings of a JSON value.
func textOf(v any) string {
	var b strings.Builder
	collectStrings(&b, v)
	return strings.ReplaceAll(b.String(), Sep, "")
}

// sse writes Server-Sent Events, flushing each.
type sse struct {
	w http.ResponseWriter
}

func newSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	return sse{w}
}

// event writes one event; an empty name writes a data line alone.
func (s sse) event(name string, data any) {
	encoded, _ := json.Marshal(data)
	if name != "" {
		fmt.Fprintf(s.w, "event: %s\n", name)
	}
	fmt.Fprintf(s.w, "data: %s\n\n", encoded)
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}
