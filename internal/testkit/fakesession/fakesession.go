package fakesession

import (
	"bufio"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Token is the key every fake session takes.
const Token = "fake-peer-token"

// Session is a fake client session of this test process.
type Session struct {
	ConfigDir  string // where its registry is (the client's config folder)
	ID         string
	Pane       string // the tmux pane it says it runs in
	Socket     string
	Transcript string

	t     testing.TB
	mu    sync.Mutex
	lines [][]string // what each connection sent, line by line
	// Take decides, for each user message sent, whether the session puts
	// it into its conversation (a line in the transcript) after taking it
	// into its queue (a line too); true when nil. A connection that does
	// not authenticate with Token first is read and ignored.
	Take func(text string) bool
	// Slow is how long it takes each message into its queue after it was
	// sent, as a client on a loaded machine does.
	Slow time.Duration
}

// New registers a session of this process, running in the tmux pane
// named, under a new config folder, and starts listening on its socket,
// with status "idle".
func New(t testing.TB, id, pane string) *Session {
	t.Helper()
	s := &Session{t: t, ConfigDir: t.TempDir(), ID: id, Pane: pane}
	dir := t.TempDir()
	s.Socket = filepath.Join(dir, "s.sock")
	s.Transcript = filepath.Join(dir, "transcript.jsonl")
	s.SetStatus("idle")
	s.write(filepath.Join(s.ConfigDir, "sessions", strconv.Itoa(os.Getpid())+".ab12.key"), map[string]any{"peerToken": Token})
	l, err := net.Listen("unix", s.Socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go s.serve(l)
	return s
}

// PlantKey replaces the key the session publishes, so that a sender that
// reads it authenticates with one the session refuses.
func (s *Session) PlantKey(token string) {
	s.write(filepath.Join(s.ConfigDir, "sessions", strconv.Itoa(os.Getpid())+".ab12.key"), map[string]any{"peerToken": token})
}

// SetStatus rewrites the session's registry entry with status.
func (s *Session) SetStatus(status string) {
	s.write(filepath.Join(s.ConfigDir, "sessions", strconv.Itoa(os.Getpid())+".json"), map[string]any{
		"pid": os.Getpid(), "sessionId": s.ID, "messagingSocketPath": s.Socket, "status": status, "version": "2.1.328",
		"tmux": "switchboard:@0." + s.Pane,
	})
}

// Sent is what each connection sent, line by line.
func (s *Session) Sent() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]string(nil), s.lines...)
}

func (s *Session) serve(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		var got []string
		sc := bufio.NewScanner(c)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			got = append(got, sc.Text())
		}
		s.mu.Lock()
		s.lines = append(s.lines, got)
		take, slow := s.Take, s.Slow
		s.mu.Unlock()
		c.Close()
		time.Sleep(slow)
		authed := false
		for _, line := range got {
			var m struct {
				Type    string
				Token   string
				From    string
				Message struct{ Content string }
			}
			if json.Unmarshal([]byte(line), &m) != nil {
				continue
			}
			authed = authed || (m.Type == "auth" && m.Token == Token)
			if m.Type != "user" || !authed {
				continue
			}
			s.appendTranscript(map[string]any{"type": "queue-operation", "operation": "enqueue", "content": m.Message.Content})
			if take == nil || take(m.Message.Content) {
				s.appendTranscript(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": m.Message.Content},
					"origin": map[string]any{"kind": "peer", "from": m.From}})
			}
		}
	}
}

// Texts are the user messages the session was sent, in order.
func (s *Session) Texts() []string {
	var texts []string
	for _, conn := range s.Sent() {
		for _, line := range conn {
			var m struct {
				Type    string
				Message struct{ Content string }
			}
			if json.Unmarshal([]byte(line), &m) == nil && m.Type == "user" {
				texts = append(texts, m.Message.Content)
			}
		}
	}
	return texts
}

func (s *Session) appendTranscript(v any) {
	data, _ := json.Marshal(v)
	f, err := os.OpenFile(s.Transcript, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		s.t.Error(err)
		return
	}
	defer f.Close()
	f.Write(append(data, '\n'))
}

func (s *Session) write(path string, v any) {
	s.t.Helper()
	data, _ := json.Marshal(v)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		s.t.Fatal(err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		s.t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		s.t.Fatal(err)
	}
}
