package lifecycle

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"switchboard/internal/atomicfile"
	"switchboard/workspace"

	"switchboard/mailbox"
)

// Session is mailboxes/session.json: where the team runs in tmux. Pane ids
// are only unique within one server, so the server's pid is kept with them.
type Session struct {
	Socket    string           `json:"socket"`
	Name      string           `json:"session"`
	ServerPID int              `json:"server_pid"`
	Started   time.Time        `json:"started"`
	Agents    map[string]*Seat `json:"agents"`
	// NoMCP: the team came up without switchboard's MCP server in its
	// clients (up --no-mcp), as a client started again is wired too.
	NoMCP bool `json:"no_mcp,omitempty"`
}

// Seat is one agent's pane.
type Seat struct {
	Pane        string `json:"pane"`
	Kind        string `json:"kind"` // as launched: shell when its program was missing
	DisplayName string `json:"display_name"`
	Parent      string `json:"parent,omitempty"` // the agent that spawned it
	// PID is the pane's first process: what the agent's commands descend
	// from, which makes them this agent's whatever they claim.
	PID int `json:"pid,omitempty"`
}

// DefaultSocket is the private tmux server of a workspace: short, so that
// the socket path stays under the 108-byte limit, and the same every time.
func DefaultSocket(workspace string) string {
	sum := sha256.Sum256([]byte(workspace))
	return "switchboard-" + hex.EncodeToString(sum[:4])
}

// DefaultSessionName is the tmux session of the team.
const DefaultSessionName = "switchboard"

// SaveSession writes the session file atomically.
func SaveSession(ws *workspace.Workspace, s *Session) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode session: %w", err)
	}
	if err := ws.Store.Ensure(mailbox.Operator); err != nil {
		return err
	}
	return atomicfile.WriteFile(ws.SessionFile(), append(data, '\n'), atomicfile.Options{TmpDir: ws.Store.TmpDir(mailbox.Operator), Durable: ws.Store.Durable})
}

// UpdateSession changes the session file under a lock, so that agents
// spawned at once do not lose each other's seats.
func UpdateSession(ws *workspace.Workspace, change func(*Session) error) error {
	return mailbox.WithLock(ws.SessionLock(), func() error { return updateSession(ws, change) })
}

func updateSession(ws *workspace.Workspace, change func(*Session) error) error {
	s, ok, err := LoadSession(ws)
	if err != nil {
		return err
	}
	if !ok {
		return ErrNotUp
	}
	if err := change(s); err != nil {
		return err
	}
	return SaveSession(ws, s)
}

// ErrNotUp is returned for what needs the team up in tmux.
var ErrNotUp = errors.New("the team is not up")

// LoadSession reads the session file; ok is false when the team was never
// brought up here.
func LoadSession(ws *workspace.Workspace) (s *Session, ok bool, err error) {
	data, err := os.ReadFile(ws.SessionFile())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read session: %w", err)
	}
	s = &Session{}
	if err := json.Unmarshal(data, s); err != nil {
		return nil, false, fmt.Errorf("session file %s: %w", ws.SessionFile(), err)
	}
	return s, true, nil
}
