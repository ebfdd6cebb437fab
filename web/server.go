package web

import (
	"context"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"switchboard/console"
	"switchboard/desk"
	"switchboard/mailbox"
	"switchboard/rules"
)

//go:embed static
var static embed.FS

// TokenCookie is the cookie the first page sets, carrying the token.
const TokenCookie = "switchboard_token"

// contentPolicy lets the page load its own files and talk to its own
// server, and nothing else: no inline script, nothing from the network.
const contentPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Config is what the web view needs: how to read the team, what to act
// with, when to tell the pages to look again, and the token every request
// must carry.
type Config struct {
	Read    func(ctx context.Context) (*console.Snapshot, error)
	Graph   func() (rules.Graph, error) // the rules drawn
	Act     console.Actions
	Changes <-chan struct{}
	Token   string
	// Hosts are the names the server answers to besides the loopback
	// ones (localhost, 127.0.0.1, ::1): a request for any other Host is
	// refused, so that a page of another site cannot reach the server
	// under a name that resolves to this machine.
	Hosts []string
}

// Server is the web view.
type Server struct {
	cfg Config

	mu      sync.Mutex
	waiting map[chan struct{}]bool // the event streams open, each told of a change
}

// New returns the web view configured by cfg; Run feeds its event streams.
func New(cfg Config) *Server {
	return &Server{cfg: cfg, waiting: make(map[chan struct{}]bool)}
}

// changeGap is the least time between two changes told: a team busy with
// mail changes many times a second, and each change makes every page read
// the team again.
const changeGap = 500 * time.Millisecond

// Run tells every open event stream of each change, until ctx is done;
// changes closer than changeGap are told as one.
func (s *Server) Run(ctx context.Context) {
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-s.cfg.Changes:
			if !ok {
				return
			}
		}
		if wait := time.Until(last.Add(changeGap)); wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
		last = time.Now()
		s.mu.Lock()
		for c := range s.waiting {
			select {
			case c <- struct{}{}:
			default: // one change waits already
			}
		}
		s.mu.Unlock()
	}
}

// Handler is the web view's handler: the page, its files, the API and the
// event stream, behind the host check, the token and the protection
// against requests from other origins.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	files, _ := fs.Sub(static, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(files)))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFileFS(w, r, files, "index.html")
	})
	mux.HandleFunc("GET /api/snapshot", s.snapshot)
	mux.HandleFunc("GET /api/agents", s.agents)
	mux.HandleFunc("GET /api/events", s.events)
	mux.HandleFunc("GET /api/rules", s.rules)
	mux.HandleFunc("POST /api/answer", s.act(func(in action) error { return s.cfg.Act.Answer(in.ID, in.Option) }))
	mux.HandleFunc("POST /api/interrupt", s.act(func(in action) error { return s.cfg.Act.Interrupt(in.Agent, in.Reason) }))
	mux.HandleFunc("POST /api/cancel", s.act(func(in action) error { return s.cfg.Act.Cancel(in.Agent, in.Reason) }))
	mux.HandleFunc("POST /api/close", s.act(func(in action) error { return s.cfg.Act.Close(in.Agent) }))
	mux.HandleFunc("POST /api/send", s.act(func(in action) error { return s.cfg.Act.Send(in.Agent, in.Title) }))
	protected := http.NewCrossOriginProtection().Handler(mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		if !s.hostAllowed(r.Host) {
			http.Error(w, "this server answers to its own address alone", http.StatusForbidden)
			return
		}
		if s.tokenInAddress(w, r) {
			return
		}
		if !s.authorized(r) {
			http.Error(w, "a token is needed: open the address switchboard web printed", http.StatusUnauthorized)
			return
		}
		protected.ServeHTTP(w, r)
	})
}

// hostAllowed reports whether a request's Host names this server.
func (s *Server) hostAllowed(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	switch strings.ToLower(host) {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	for _, h := range s.cfg.Hosts {
		if strings.EqualFold(h, host) {
			return true
		}
	}
	return false
}

// authorized reports whether the request carries the token, in the
// Authorization header or in the cookie.
func (s *Server) authorized(r *http.Request) bool {
	if bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && s.tokenIs(bearer) {
		return true
	}
	c, err := r.Cookie(TokenCookie)
	return err == nil && s.tokenIs(c.Value)
}

// tokenInAddress answers the page asked for with the token in its address:
// it sets the cookie and sends the browser to the address without the
// token, and reports that it answered.
func (s *Server) tokenInAddress(w http.ResponseWriter, r *http.Request) bool {
	t := r.URL.Query().Get("token")
	if r.Method != http.MethodGet || r.URL.Path != "/" || !s.tokenIs(t) {
		return false
	}
	http.SetCookie(w, &http.Cookie{Name: TokenCookie, Value: t, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/", http.StatusSeeOther)
	return true
}

func (s *Server) tokenIs(t string) bool {
	return s.cfg.Token != "" && subtle.ConstantTimeCompare([]byte(t), []byte(s.cfg.Token)) == 1
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
// may have changed, and a comment every 25 s that keeps it open.
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
	fmt.Fprint(w, "event: change\ndata: {}\n\n")
	flusher.Flush()
	keep := time.NewTicker(25 * time.Second)
	defer keep.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-changed:
			fmt.Fprint(w, "event: change\ndata: {}\n\n")
		case <-keep.C:
			fmt.Fprint(w, ": still here\n\n")
		}
		flusher.Flush()
	}
}

// action is the body of a POST to the API.
type action struct {
	ID     string `json:"id"`
	Option string `json:"option"`
	Agent  string `json:"agent"`
	Reason string `json:"reason"`
	Title  string `json:"title"`
}

// act answers a POST with do's outcome: 204, or 400/403 with the reason.
func (s *Server) act(do func(action) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var in action
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&in); err != nil {
			http.Error(w, "the body is one JSON object: "+err.Error(), http.StatusBadRequest)
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
