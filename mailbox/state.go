package mailbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"switchboard/internal/atomicfile"
)

// Agent states.
const (
	StateStarting    = "starting"
	StateIdle        = "idle"
	StateBusy        = "busy"
	StateWaiting     = "waiting" // at a permission prompt
	StateInterrupted = "interrupted"
	StateExited      = "exited"
	// StateLimited: the client says it hit its usage or rate limit, or
	// lost its login; Detail says what it said (its reset time too, when
	// it gave one). Not a failure: it is not started again, notices wait.
	StateLimited = "limited"
)

// StateLeft is the state of an agent of a team across machines whose host
// stopped on purpose (its down), as that host told the hub before it went;
// no state file holds it.
const StateLeft = "left"

// States lists every agent state.
var States = []string{StateStarting, StateIdle, StateBusy, StateWaiting, StateInterrupted, StateExited, StateLimited}

// Sources of a state.
const (
	SourceHook = "hook" // the agent's own hooks: authoritative
	SourcePane = "pane" // the master, from the pane: its death, or its screen standing still
	// SourceClient: the client's own record of its session (Claude Code's
	// session registry, Codex CLI's session log), read by the master
	// beside the hooks.
	SourceClient = "client"
)

// AgentState is mailboxes/<agent>/state.json: what an agent is doing now.
// Its hooks write it; the master writes it for agents without hooks.
type AgentState struct {
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
func (s AgentState) Detailed(said string) AgentState {
	said = strings.TrimSpace(said)
	if r := []rune(said); len(r) > maxDetail {
		said = string(r[:maxDetail]) + "…"
	}
	s.Detail = said
	return s
}

// Validate checks the state name.
func (s AgentState) Validate() error {
	if !slices.Contains(States, s.State) {
		return fmt.Errorf("agent state %q is not one of %v", s.State, States)
	}
	return nil
}

// StatePath is the agent's state file.
func (s *Store) StatePath(agent string) string { return filepath.Join(s.Dir, agent, "state.json") }

// ClientRecordPath is where the agent's client recorded the session it
// runs (clientinbox.Record), through its start-up hook.
func (s *Store) ClientRecordPath(agent string) string {
	return filepath.Join(s.Dir, agent, "client.json")
}

// BudgetPath marks an agent over its budget: its notices are held until
// the budget is raised or a new day begins (see desk.OverBudget).
func (s *Store) BudgetPath(agent string) string {
	return filepath.Join(s.Dir, agent, "over-budget")
}

// TranscriptsPath lists, a line each, every transcript the agent's clients
// recorded, for what they spent (switchboard usage).
func (s *Store) TranscriptsPath(agent string) string {
	return filepath.Join(s.Dir, agent, "transcripts")
}

// WriteState replaces the agent's state file atomically.
func (s *Store) WriteState(agent string, st AgentState) error {
	if err := st.Validate(); err != nil {
		return err
	}
	data, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("encode state of %s: %w", agent, err)
	}
	if err := s.Ensure(agent); err != nil {
		return err
	}
	// Not synced: a state is soon replaced, and a lost one is rebuilt.
	return atomicfile.WriteFile(s.StatePath(agent), append(data, '\n'), atomicfile.Options{TmpDir: s.stageFor(agent)})
}

// ReadState reads the agent's state; ok is false when it has none yet.
func (s *Store) ReadState(agent string) (st AgentState, ok bool, err error) {
	data, err := os.ReadFile(s.StatePath(agent))
	if errors.Is(err, fs.ErrNotExist) {
		return AgentState{}, false, nil
	}
	if err != nil {
		return AgentState{}, false, fmt.Errorf("read state of %s: %w", agent, err)
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return AgentState{}, false, fmt.Errorf("state of %s: %w", agent, err)
	}
	if err := st.Validate(); err != nil {
		return AgentState{}, false, fmt.Errorf("state of %s: %w", agent, err)
	}
	return st, true, nil
}

// HasExited reports whether the agent's state says it has exited.
func (s *Store) HasExited(agent string) bool {
	st, ok, _ := s.ReadState(agent)
	return ok && st.State == StateExited
}
