package clientinbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"switchboard/internal/proctree"
)

// ErrNoSession is a session the registry does not list, or lists for a
// process that has ended: the client runs no inbox for it (an older client,
// or one that exited).
var ErrNoSession = errors.New("clientinbox: no live session")

// ErrTornEntry is an entry read while the client rewrote it in place: read
// it again.
var ErrTornEntry = errors.New("clientinbox: the session's entry was being written")

// Client statuses a session's registry entry gives.
const (
	StatusIdle    = "idle"
	StatusBusy    = "busy"
	StatusWaiting = "waiting" // on a permission prompt
)

// Session is a client's entry in its session registry.
type Session struct {
	PID       int    `json:"pid"`
	SessionID string `json:"sessionId"`
	Name      string `json:"name"` // what the client's own tools call it
	Cwd       string `json:"cwd"`
	Version   string `json:"version"`
	// Tmux is the pane the session runs in, as "session:@window.%pane".
	Tmux   string `json:"tmux"`
	Socket string `json:"messagingSocketPath"`
	Status string `json:"status"`
	// StatusUpdatedAt is when the client last wrote its status, in
	// milliseconds since 1970; it rewrites the entry for other fields too.
	StatusUpdatedAt int64 `json:"statusUpdatedAt"`
	// Changed is when the client last said its status: StatusUpdatedAt,
	// or the entry's file time for a client that does not write it.
	Changed time.Time `json:"-"`

	configDir string
}

// ConfigDir is where a client keeps its sessions: CLAUDE_CONFIG_DIR when
// set, else ~/.claude, as env (KEY=VALUE pairs, as os.Environ gives) says.
func ConfigDir(env []string) string {
	var home string
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		switch name {
		case "CLAUDE_CONFIG_DIR":
			if value != "" {
				return value
			}
		case "HOME":
			home = value
		}
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".claude")
}

// Find returns the live session sessionID of the client whose config
// folder is configDir; ErrNoSession when the registry lists none.
func Find(configDir, sessionID string) (Session, error) {
	if configDir == "" || sessionID == "" {
		return Session{}, ErrNoSession
	}
	entries, err := filepath.Glob(filepath.Join(configDir, "sessions", "*.json"))
	if err != nil {
		return Session{}, fmt.Errorf("list the client's sessions: %w", err)
	}
	for _, path := range entries {
		s, err := readSession(path)
		if err != nil || s.SessionID != sessionID || !proctree.Alive(s.PID) {
			continue
		}
		s.configDir = configDir
		return s, nil
	}
	return Session{}, ErrNoSession
}

// Names are the names and ids of the live sessions the registry under
// configDir lists: whom the client's own tools can write to.
func Names(configDir string) []string {
	entries, _ := filepath.Glob(filepath.Join(configDir, "sessions", "*.json"))
	var names []string
	for _, path := range entries {
		s, err := readSession(path)
		if err != nil || !proctree.Alive(s.PID) {
			continue
		}
		if s.Name != "" {
			names = append(names, s.Name)
		}
		names = append(names, s.SessionID)
	}
	return names
}

func readSession(path string) (Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return Session{}, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return Session{}, err
	}
	var s Session
	if err := json.NewDecoder(f).Decode(&s); err != nil {
		return Session{}, fmt.Errorf("read %s: %w: %w", path, err, ErrTornEntry)
	}
	if strconv.Itoa(s.PID)+".json" != filepath.Base(path) {
		return Session{}, fmt.Errorf("%s names pid %d", path, s.PID)
	}
	s.Changed = info.ModTime()
	if s.StatusUpdatedAt > 0 {
		s.Changed = time.UnixMilli(s.StatusUpdatedAt)
	}
	return s, nil
}

// token is the key a sender authenticates with, from the key file the
// session wrote beside its entry (<pid>.<hash>.key, readable by its user
// alone).
func (s Session) token() (string, error) {
	keys, err := filepath.Glob(filepath.Join(s.configDir, "sessions", strconv.Itoa(s.PID)+".*.key"))
	if err != nil {
		return "", err
	}
	for _, path := range keys {
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("read the session's key: %w", err)
		}
		var key struct {
			PeerToken string `json:"peerToken"`
		}
		if json.Unmarshal(data, &key) == nil && key.PeerToken != "" {
			return key.PeerToken, nil
		}
	}
	return "", fmt.Errorf("session %s (pid %d) published no key: %w", s.SessionID, s.PID, ErrNoSession)
}

// InPane reports whether the session says it runs in the tmux pane (its
// id, "%3"): a record that names another agent's session, written by hand,
// is not believed.
func (s Session) InPane(pane string) bool {
	return pane != "" && strings.HasSuffix(s.Tmux, "."+pane)
}

// EntryPath is the session's entry in its client's registry.
func (s Session) EntryPath() string {
	return filepath.Join(s.configDir, "sessions", strconv.Itoa(s.PID)+".json")
}

// Current is the session's entry as the client last wrote it: its status
// now. ErrNoSession when the session has ended; ErrTornEntry when the
// entry was being rewritten.
func (s Session) Current() (Session, error) {
	now, err := readSession(s.EntryPath())
	if errors.Is(err, ErrTornEntry) {
		return Session{}, err
	}
	if err != nil || now.SessionID != s.SessionID || !proctree.Alive(now.PID) {
		return Session{}, ErrNoSession
	}
	now.configDir = s.configDir
	return now, nil
}
