package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"switchboard/desk"
	"switchboard/mailbox"
)

// api is the web view's API, each call behind the token (see Handler).
func (s *Server) api() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/snapshot", s.snapshot)
	mux.HandleFunc("GET /api/agents", s.agents)
	mux.HandleFunc("GET /api/events", s.events)
	mux.HandleFunc("GET /api/rules", s.rules)
	mux.HandleFunc("POST /api/answer", act(func(in answerBody) error { return s.cfg.Act.Answer(in.ID, in.Option) }))
	mux.HandleFunc("POST /api/interrupt", act(func(in reasonBody) error { return s.cfg.Act.Interrupt(in.Agent, in.Reason) }))
	mux.HandleFunc("POST /api/cancel", act(func(in reasonBody) error { return s.cfg.Act.Cancel(in.Agent, in.Reason) }))
	mux.HandleFunc("POST /api/close", act(func(in agentBody) error { return s.cfg.Act.Close(in.Agent) }))
	mux.HandleFunc("POST /api/send", act(func(in sendBody) error { return s.cfg.Act.Send(in.Agent, in.Title, in.Content) }))
	return mux
}

// shownContent bounds the content of each logged message the page gets:
// the log's last records, whole, could weigh megabytes.
const shownContent = 8 << 10

func (s *Server) snapshot(w http.ResponseWriter, r *http.Request) {
	snap, err := s.cfg.Read(r.Context())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	log := make([]mailbox.Record, len(snap.Log))
	for i, rec := range snap.Log {
		if rec.Message != nil && len(rec.Message.Content) > shownContent {
			m := *rec.Message
			cut := strings.ToValidUTF8(m.Content[:shownContent], "")
			m.Content = fmt.Sprintf("%s\n… (%d bytes more: switchboard show %d)", cut, len(m.Content)-len(cut), rec.Seq)
			rec.Message = &m
		}
		log[i] = rec
	}
	shown := *snap
	shown.Log = log
	writeJSON(w, &shown)
}

// agents answers what `switchboard agents --json` prints.
func (s *Server) agents(w http.ResponseWriter, r *http.Request) {
	snap, err := s.cfg.Read(r.Context())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	members := make([]desk.Member, len(snap.Agents))
	for i, a := range snap.Agents {
		members[i] = a.Member
	}
	writeJSON(w, members)
}

// rules answers the rules graph, as `rules graph --json` prints it.
func (s *Server) rules(w http.ResponseWriter, r *http.Request) {
	g, err := s.cfg.Graph()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSON(w, g)
}

// events is a stream of server-sent events: "change" each time the team
// may have changed, and nothing else: a team at rest wakes neither the
// server nor the page (a page whose stream a quiet connection's end broke
// opens another). The page reads it with fetch, which sends the token in
// a header as EventSource cannot.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming is not supported here", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	changed := make(chan struct{}, 1)
	s.mu.Lock()
	s.waiting[changed] = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.waiting, changed)
		s.mu.Unlock()
	}()
	for {
		fmt.Fprint(w, "event: change\ndata: {}\n\n")
		flusher.Flush()
		select {
		case <-r.Context().Done():
			return
		case <-changed:
		}
	}
}

// The bodies of the API's POSTs. Each endpoint takes its own fields alone:
// one it does not know is refused, not dropped, so that nothing the person
// wrote is lost without a word.
type (
	answerBody struct {
		ID     string `json:"id"`
		Option string `json:"option"`
	}
	reasonBody struct { // interrupt and cancel
		Agent  string `json:"agent"`
		Reason string `json:"reason"`
	}
	agentBody struct {
		Agent string `json:"agent"`
	}
	sendBody struct {
		Agent   string `json:"agent"`
		Title   string `json:"title"`
		Content string `json:"content"`
	}
)

// act answers a POST with do's outcome: 204, or 400/403 with the reason.
// A body weighs at most what a message file may.
func act[T any](do func(T) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var in T
		body := json.NewDecoder(http.MaxBytesReader(w, r.Body, mailbox.MaxFileSize))
		body.DisallowUnknownFields()
		err := body.Decode(&in)
		if err == nil {
			if _, end := body.Token(); end != io.EOF {
				err = errors.New("more follows the object")
			}
		}
		if err != nil {
			http.Error(w, fmt.Sprintf("the body is one JSON object of the fields %s takes (docs/console-and-web.md lists them): %v", r.URL.Path, err), http.StatusBadRequest)
			return
		}
		if err := do(in); err != nil {
			status := http.StatusBadRequest
			if errors.Is(err, desk.ErrNoRight) {
				status = http.StatusForbidden
			}
			http.Error(w, err.Error(), status)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
