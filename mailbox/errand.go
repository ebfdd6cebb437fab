package mailbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"switchboard/internal/atomicfile"
)

// An errand is what a command asks of the hub of a team across machines
// (take or release a lock, set a shared value, change the team's board)
// through its workspace's master, which alone holds the host's credentials.
// The command leaves <id>.errand in its agent's outbox (written under a dot
// name in the outbox itself and renamed, as Post does, so that an outbox
// given to a contained agent as a mount of its own is all it needs). The
// master takes it as the outbox owner's (a file in an agent's outbox is that
// agent's), checks it, performs it, writes its answer to
// outbox/sent/<id>.answer, where the agent reads, and then removes the
// errand.

// The ends of the names of an errand and of its answer.
const (
	errandSuffix = ".errand"
	answerSuffix = ".answer"
)

// MaxErrandSize bounds an errand file, and an answer: a shared value (64 KiB
// at most in the bulletin) written as JSON, and a few names.
const MaxErrandSize = 128 << 10

// ErrandKind says what an errand asks.
type ErrandKind string

// The errands there are.
const (
	// ErrandLock takes Resource on the hub for the asking agent.
	ErrandLock ErrandKind = "lock"
	// ErrandUnlock releases Resource, when the asking agent holds it (the
	// taking of Revision, when not 0).
	ErrandUnlock ErrandKind = "unlock"
	// ErrandForceUnlock releases Resource whoever holds it, when its holder
	// is gone: the operator's.
	ErrandForceUnlock ErrandKind = "force-unlock"
	// ErrandSetState sets Key of the team's shared state to Value.
	ErrandSetState ErrandKind = "set-state"
	// ErrandChangeBoard changes the team's board: Status, Phase, Warn,
	// ClearWarnings; the overseers'.
	ErrandChangeBoard ErrandKind = "change-board"
)

// Errand is a request for the master to perform on the hub.
type Errand struct {
	// From is the asking agent: the owner of the outbox it is in, which the
	// master checks. Left out, it is that owner.
	From          string          `json:"from,omitempty"`
	Kind          ErrandKind      `json:"kind"`
	Resource      string          `json:"resource,omitempty"`
	Revision      uint64          `json:"revision,omitempty"`
	Key           string          `json:"key,omitempty"`
	Value         json.RawMessage `json:"value,omitempty"`
	Status        string          `json:"status,omitempty"`
	Phase         string          `json:"phase,omitempty"`
	Warn          string          `json:"warn,omitempty"`
	ClearWarnings bool            `json:"clear_warnings,omitempty"`
}

// errandFields are the keys an errand file may have, exactly so: Go would
// match "KIND" or "kınd" to kind, a second kind unseen beside the first.
var errandFields = map[string]bool{
	"from": true, "kind": true, "resource": true, "revision": true, "key": true, "value": true,
	"status": true, "phase": true, "warn": true, "clear_warnings": true,
}

// FitsLine reports whether text is one line of at most MaxTitleLength
// characters: what every agent is shown before each prompt (a lock's name
// and reason, a phase, a warning).
func FitsLine(text string) bool {
	return utf8.RuneCountInString(text) <= MaxTitleLength && !strings.ContainsAny(text, "\r\n")
}

// Validate checks that the errand asks something whole, in the bounds the
// bulletin shows: the master refuses anything else, whoever wrote it.
func (e *Errand) Validate() error {
	line := func(what, text string) error {
		if strings.TrimSpace(text) == "" {
			return fmt.Errorf("%s is missing", what)
		}
		if !FitsLine(text) {
			return fmt.Errorf("%s is not one line of at most %d characters", what, MaxTitleLength)
		}
		return nil
	}
	switch e.Kind {
	case ErrandLock, ErrandUnlock, ErrandForceUnlock:
		return line("the resource", e.Resource)
	case ErrandSetState:
		if err := line("the key", e.Key); err != nil {
			return err
		}
		if len(e.Value) == 0 {
			return fmt.Errorf("the value of %s is missing", e.Key)
		}
		if !json.Valid(e.Value) {
			return fmt.Errorf("the value of %s is not JSON", e.Key)
		}
		return nil
	case ErrandChangeBoard:
		if e.Status == "" && e.Phase == "" && e.Warn == "" && !e.ClearWarnings {
			return errors.New("it changes nothing: give a status, a phase, a warning or clear_warnings")
		}
		for what, text := range map[string]string{"the phase": e.Phase, "the warning": e.Warn} {
			if text != "" {
				if err := line(what, text); err != nil {
					return err
				}
			}
		}
		return nil
	case "":
		return errors.New("kind is missing")
	}
	return fmt.Errorf("kind %q is not one of lock, unlock, force-unlock, set-state, change-board", e.Kind)
}

// IsErrandName reports whether an outbox file's name is an errand's.
func IsErrandName(name string) bool {
	return strings.HasSuffix(name, errandSuffix) && !strings.HasPrefix(name, ".")
}

// ErrandID is the id of the errand at path: its file's name without
// .errand, which names its answer.
func ErrandID(path string) string {
	return strings.TrimSuffix(filepath.Base(path), errandSuffix)
}

// PostErrand leaves e in the agent's outbox for the master, and returns the
// id its answer will have.
func (s *Store) PostErrand(agent string, e *Errand) (id string, err error) {
	if err := ValidateAgentName(agent); err != nil {
		return "", err
	}
	data, err := json.Marshal(e)
	if err != nil {
		return "", err
	}
	id = NewID()
	dir := s.OutboxDir(agent)
	// Not synced: an errand lives as long as the command that waits for it,
	// which a power cut ends too.
	if err := atomicfile.Publish(filepath.Join(dir, id+errandSuffix), data, atomicfile.Options{TmpDir: dir}); err != nil {
		return "", fmt.Errorf("ask the master: %w", err)
	}
	return id, nil
}

// WithdrawErrand takes back an errand the master has not removed yet,
// reporting whether it was still there (it may be under way all the same).
func (s *Store) WithdrawErrand(agent, id string) bool {
	return os.Remove(filepath.Join(s.OutboxDir(agent), id+errandSuffix)) == nil
}

// OpenErrand reads the errand at path in the agent's outbox. It returns an
// error wrapping fs.ErrNotExist when the file went meanwhile, an
// *Unsettled one when it is not whole JSON (it may still be being written
// by hand), and a Refusal, which says why, when it is not a valid errand of
// this agent: over MaxErrandSize, not a file, fields it does not know, or
// asked in another agent's name.
func (s *Store) OpenErrand(agent, path string) (*Errand, error) {
	data, stamp, err := readPending(path, MaxErrandSize)
	if err != nil {
		return nil, err
	}
	e, err := parseErrand(data)
	if errors.Is(err, ErrIncomplete) {
		return nil, &Unsettled{Stamp: stamp, Err: err}
	}
	if err != nil {
		return nil, Refusal(err.Error())
	}
	if e.From == "" {
		e.From = agent
	}
	if e.From != agent {
		return nil, Refusal(fmt.Sprintf("asked in another's name: \"from\" is %q, but the errand was left in the outbox of %s", e.From, agent))
	}
	if err := e.Validate(); err != nil {
		return nil, Refusal("not a valid errand: " + err.Error())
	}
	return e, nil
}

// parseErrand decodes an errand file strictly: exact keys, each once.
func parseErrand(data []byte) (*Errand, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("not a valid errand: the file is empty (%w)", ErrIncomplete)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return nil, fmt.Errorf("not a valid errand: not a JSON object: %w (%w)", err, ErrIncomplete)
		}
		return nil, fmt.Errorf("not a valid errand: not a JSON object: %w", err)
	}
	for k := range raw {
		if !errandFields[k] {
			return nil, fmt.Errorf("not a valid errand: it has a field %q, which errands do not have", k)
		}
	}
	if err := checkStructure(data); err != nil {
		return nil, err
	}
	var e Errand
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("not a valid errand: %w", err)
	}
	return &e, nil
}

// ErrandRefusal says why an errand was not done.
type ErrandRefusal string

// The refusals of an errand.
const (
	// RefusedInvalid is an errand that is not valid (ErrandAnswer.Reason
	// says how), or not its outbox owner's.
	RefusedInvalid ErrandRefusal = "invalid"
	// RefusedRight is an errand the rules do not give its agent.
	RefusedRight ErrandRefusal = "right"
	// RefusedHeld is a lock another holds: ErrandAnswer.Holder on
	// ErrandAnswer.Host.
	RefusedHeld ErrandRefusal = "held"
	// RefusedHubAway is an errand the hub was out of reach for: nothing was
	// changed.
	RefusedHubAway ErrandRefusal = "hub-away"
	// RefusedNoHub is an errand to a master that joins no hub.
	RefusedNoHub ErrandRefusal = "no-hub"
	// RefusedFailed is an errand the hub did not do, for ErrandAnswer.Reason.
	RefusedFailed ErrandRefusal = "failed"
)

// ErrandAnswer is the master's answer to an errand.
type ErrandAnswer struct {
	// Refused is why it was not done; "" when it was.
	Refused ErrandRefusal `json:"refused,omitempty"`
	// Reason says why in words.
	Reason string `json:"reason,omitempty"`
	// Holder and Host say who holds a lock: the one refused (RefusedHeld),
	// or the one released.
	Holder string `json:"holder,omitempty"`
	Host   string `json:"host,omitempty"`
	// Revision is the hub's revision of a lock taken now; 0 when the agent
	// held it already.
	Revision uint64 `json:"revision,omitempty"`
	// Said is what a change of the board did, a clause each, and Board the
	// board as the hub holds it since.
	Said  []string        `json:"said,omitempty"`
	Board json.RawMessage `json:"board,omitempty"`
}

// answerPath is where the answer to the agent's errand id is written.
func (s *Store) answerPath(agent, id string) string {
	return filepath.Join(s.SentDir(agent), id+answerSuffix)
}

// Answer writes the answer to the agent's errand id beside its sent
// messages, where the agent may read it. It replaces an answer there: an
// errand performed again after a crash is answered again.
func (s *Store) Answer(agent, id string, a ErrandAnswer) error {
	data, err := json.Marshal(a)
	if err != nil {
		return err
	}
	// Not synced, as the errand is not: its command reads it at once.
	if err := atomicfile.WriteFile(s.answerPath(agent, id), data, atomicfile.Options{TmpDir: s.stageFor(agent)}); err != nil {
		return fmt.Errorf("answer the errand %s of %s: %w", id, agent, err)
	}
	return nil
}

// ReadAnswer reads the answer to the agent's errand id; ok is false while
// there is none.
func (s *Store) ReadAnswer(agent, id string) (a ErrandAnswer, ok bool, err error) {
	f, err := os.OpenFile(s.answerPath(agent, id), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return a, false, nil
	}
	if err != nil {
		return a, false, fmt.Errorf("read the master's answer: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxErrandSize+1))
	if err == nil && len(data) > MaxErrandSize {
		err = fmt.Errorf("it is over %d bytes", MaxErrandSize)
	}
	if err == nil {
		err = json.Unmarshal(data, &a)
	}
	if err != nil {
		return ErrandAnswer{}, false, fmt.Errorf("read the master's answer %s: %w", f.Name(), err)
	}
	return a, true, nil
}

// RemoveAnswer removes the answer to the agent's errand id, once read long
// enough ago.
func (s *Store) RemoveAnswer(agent, id string) {
	os.Remove(s.answerPath(agent, id))
}

// SweepAnswers removes the answers in the agent's sent/ folder written
// before cutoff: what a master that stopped did not remove.
func (s *Store) SweepAnswers(agent string, cutoff time.Time) {
	dir := s.SentDir(agent)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), answerSuffix) || !e.Type().IsRegular() {
			continue
		}
		if info, err := e.Info(); err == nil && info.ModTime().Before(cutoff) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
