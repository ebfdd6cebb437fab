package web

import (
	"context"
	"crypto/subtle"
	"embed"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"switchboard/desk"
	"switchboard/rules"
)

//go:embed static
var static embed.FS

// contentPolicy lets the page load its own files and talk to its own
// server, and nothing else: no inline script, nothing from the network.
const contentPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Actions are the verbs the page acts with, each the desk's as the one who
// runs the web view. They are the console's, but a message sent carries
// its content as well as its title.
type Actions interface {
	Answer(id, option string) error
	Interrupt(agent, reason string) error
	Cancel(agent, reason string) error
	Close(agent string) error
	Send(to, title, content string) error
}

// Config is what the web view needs: how to read the team, what to act
// with, when to tell the pages to look again, and the token every call of
// the API must carry.
type Config struct {
	Read    func(ctx context.Context) (*desk.Snapshot, error)
	Graph   func() (rules.Graph, error) // the rules drawn
	Act     Actions
	Changes <-chan struct{}
	Token   string
	// Hosts are the names the server answers to besides localhost and the
	// loopback addresses: a request for any other Host is refused, so
	// that a page of another site cannot reach the server under a name
	// that resolves to this machine.
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

// Handler is the web view's handler: the page and its files, which hold
// nothing of the team, and the API and its event stream, which need the
// token; all behind the host check and the protection against requests
// from other origins.
func (s *Server) Handler() http.Handler {
	files, _ := fs.Sub(static, "static")
	page := http.NewServeMux()
	page.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(files)))
	page.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFileFS(w, r, files, "index.html")
	})
	page.Handle("/api/", s.withToken(s.api()))
	protected := http.NewCrossOriginProtection().Handler(page)
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
		// A token in a query reaches servers and logs; earlier versions
		// printed such addresses, and they are refused with the reason
		// rather than served a page that cannot read the team.
		if r.URL.Query().Has("token") {
			http.Error(w, "an address with ?token= no longer works: the token now follows a # (#token=...), which no server sees; open the address switchboard web prints", http.StatusBadRequest)
			return
		}
		protected.ServeHTTP(w, r)
	})
}

// withToken refuses a request that does not carry the token in its
// Authorization header. The token is taken from nowhere else: a cookie
// would go to every server on the same host, whatever its port, and a
// query to the logs of whatever sees the address.
func (s *Server) withToken(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || s.cfg.Token == "" || subtle.ConstantTimeCompare([]byte(bearer), []byte(s.cfg.Token)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard"`)
			http.Error(w, "a token is needed (Authorization: Bearer TOKEN): open the address switchboard web printed", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// hostAllowed reports whether a request's Host names this server:
// localhost, a loopback address (127.0.0.2 as well as 127.0.0.1: an
// address cannot be rebound to another machine as a name can), or one of
// the configured hosts.
func (s *Server) hostAllowed(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return true
	}
	for _, h := range s.cfg.Hosts {
		if strings.EqualFold(h, host) {
			return true
		}
	}
	return false
}
