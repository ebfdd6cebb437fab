package conversation

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"switchboard/internal/atomicfile"
)

// Agent states.
const (
	Starting    = "starting"
	Idle        = "idle"
	Busy        = "busy"
	Waiting     = "waiting" // at a permission prompt
	Interrupted = "interrupted"
	Exited      = "exited"
	// Limited: the client says it hit its usage or rate limit, or
	// lost its login; Detail says what it said (its reset time too, when
	// it gave one). Not a failure: it is not started again, notices wait.
	Limited = "limited"
)

// Left is the state of an agent of a team across machines whose host
// stopped on purpose (its down), as that host told the hub before it went;
// no state file holds it.
const Left = "left"

// States lists every agent state.
var States = []string{Starting, Idle, Busy, Waiting, Interrupted, Exited, Limited}

// Sources of a state.
const (
	SourceHook = "hook" // the agent's own hooks: authoritative
	SourcePane = "pane" // the master, from the pane: its death, or its screen standing still
	// SourceClient: the client's own record of its session (Claude Code's
	// session registry, Codex CLI's session log), read by the master
	// beside the hooks.
	SourceClient = "client"
)

// State is mailboxes/<agent>/state.json: what an agent is doing now.
// Its hooks write it; the master writes it for agents without hooks.
type State struct {
	State      string    `json:"state"`
	Since      time.Time `json:"since"`
	Source     string    `json:"source"`
	ExitStatus *int      `json:"exit_status,omitempty"` // set when exited
	Detail     string    `json:"detail,omitempty"`
}

// maxDetail bounds a state's detail, in runes.
const maxDetail = 300

// Detailed returns the state with what the client said as its detail, cut
// to maxDetail runes: a client's words can be long.
func (s State) Detailed(said string) State {
	said = strings.TrimSpace(said)
	if r := []rune(said); len(r) > maxDetail {
		said = string(r[:maxDetail]) + "…"
	}
	s.Detail = said
	return s
}

// Validate checks the state name.
func (s State) Validate() error {
	if !slices.Contains(States, s.State) {
		return fmt.Errorf("agent state %q is not one of %v", s.State, States)
	}
	return nil
}

// SetState replaces the agent's state file atomically.
func (b *Book) SetState(agent string, st State) error {
	if err := st.Validate(); err != nil {
		return err
	}
	data, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("encode state of %s: %w", agent, err)
	}
	if err := b.store.Ensure(agent); err != nil {
		return err
	}
	// Not synced: a state is soon replaced, and a lost one is rebuilt.
	return atomicfile.WriteFile(b.StatePath(agent), append(data, '\n'), atomicfile.Options{TmpDir: b.store.StageFor(agent)})
}

// State reads the agent's state; ok is false when it has none yet.
func (b *Book) State(agent string) (st State, ok bool, err error) {
	data, err := os.ReadFile(b.StatePath(agent))
	if errors.Is(err, fs.ErrNotExist) {
		return State{}, false, nil
	}
	if err != nil {
		return State{}, false, fmt.Errorf("read state of %s: %w", agent, err)
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return State{}, false, fmt.Errorf("state of %s: %w", agent, err)
	}
	if err := st.Validate(); err != nil {
		return State{}, false, fmt.Errorf("state of %s: %w", agent, err)
	}
	return st, true, nil
}

// HasExited reports whether the agent's state says it has exited.
func (b *Book) HasExited(agent string) bool {
	st, ok, _ := b.State(agent)
	return ok && st.State == Exited
}
