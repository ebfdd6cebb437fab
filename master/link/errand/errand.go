package errand

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

	"switchboard/internal/atomicfile"
	"switchboard/mailbox"
)

// answerSuffix ends the name of an errand's answer.
const answerSuffix = ".answer"

// MaxSize bounds an errand file, and an answer: a shared value (64 KiB
// at most in the bulletin) written as JSON, and a few names.
const MaxSize = 128 << 10

// Kind says what an errand asks.
type Kind string

// The errands there are.
const (
	// Lock takes Resource on the hub for the asking agent.
	Lock Kind = "lock"
	// Unlock releases Resource, when the asking agent holds it (the
	// taking of Revision, when not 0).
	Unlock Kind = "unlock"
	// ForceUnlock releases Resource whoever holds it, when its holder
	// is gone: the operator's.
	ForceUnlock Kind = "force-unlock"
	// SetState sets Key of the team's shared state to Value.
	SetState Kind = "set-state"
	// ChangeBoard changes the team's board: Status, Phase, Warn,
	// ClearWarnings; the overseers'.
	ChangeBoard Kind = "change-board"
)

// Box is where errands are left, in the outboxes of a store's agents, and
// answered, beside each agent's sent messages.
type Box struct {
	store *mailbox.Store
}

// In returns the box of errands in store's outboxes.
func In(store *mailbox.Store) *Box { return &Box{store: store} }

// Errand is a request for the master to perform on the hub.
type Errand struct {
	// From is the asking agent: the owner of the outbox it is in, which the
	// master checks. Left out, it is that owner.
	From          string          `json:"from,omitempty"`
	Kind          Kind            `json:"kind"`
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

// Validate checks that the errand asks something whole, in the bounds the
// bulletin shows: the master refuses anything else, whoever wrote it.
func (e *Errand) Validate() error {
	line := func(what, text string) error {
		if strings.TrimSpace(text) == "" {
			return fmt.Errorf("%s is missing", what)
		}
		if !mailbox.FitsLine(text) {
			return fmt.Errorf("%s is not one line of at most %d characters", what, mailbox.MaxTitleLength)
		}
		return nil
	}
	switch e.Kind {
	case Lock, Unlock, ForceUnlock:
		return line("the resource", e.Resource)
	case SetState:
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
	case ChangeBoard:
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

// Post leaves e in the agent's outbox for the master, and returns the
// id its answer will have.
func (b *Box) Post(agent string, e *Errand) (id string, err error) {
	if err := mailbox.ValidateAgentName(agent); err != nil {
		return "", err
	}
	data, err := json.Marshal(e)
	if err != nil {
		return "", err
	}
	id = mailbox.NewID()
	dir := b.store.OutboxDir(agent)
	// Not synced: an errand lives as long as the command that waits for it,
	// which a power cut ends too.
	if err := atomicfile.Publish(filepath.Join(dir, id+mailbox.ErrandSuffix), data, atomicfile.Options{TmpDir: dir}); err != nil {
		return "", fmt.Errorf("ask the master: %w", err)
	}
	return id, nil
}

// Withdraw takes back an errand the master has not removed yet,
// reporting whether it was still there (it may be under way all the same).
func (b *Box) Withdraw(agent, id string) bool {
	return os.Remove(filepath.Join(b.store.OutboxDir(agent), id+mailbox.ErrandSuffix)) == nil
}

// Open reads the errand at path in the agent's outbox. It returns an
// error wrapping fs.ErrNotExist when the file went meanwhile, a
// *mailbox.Unsettled one when it is not whole JSON (it may still be being
// written by hand), and a mailbox.Refusal, which says why, when it is not
// a valid errand of this agent: over MaxSize, not a file, fields it does
// not know, or asked in another agent's name.
func (b *Box) Open(agent, path string) (*Errand, error) {
	data, stamp, err := mailbox.ReadPending(path, MaxSize)
	if err != nil {
		return nil, err
	}
	e, err := parseErrand(data)
	if errors.Is(err, mailbox.ErrIncomplete) {
		return nil, &mailbox.Unsettled{Stamp: stamp, Err: err}
	}
	if err != nil {
		return nil, mailbox.Refusal(err.Error())
	}
	if e.From == "" {
		e.From = agent
	}
	if e.From != agent {
		return nil, mailbox.Refusal(fmt.Sprintf("asked in another's name: \"from\" is %q, but the errand was left in the outbox of %s", e.From, agent))
	}
	if err := e.Validate(); err != nil {
		return nil, mailbox.Refusal("not a valid errand: " + err.Error())
	}
	return e, nil
}

// parseErrand decodes an errand file strictly: exact keys, each once.
func parseErrand(data []byte) (*Errand, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("not a valid errand: the file is empty (%w)", mailbox.ErrIncomplete)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return nil, fmt.Errorf("not a valid errand: not a JSON object: %w (%w)", err, mailbox.ErrIncomplete)
		}
		return nil, fmt.Errorf("not a valid errand: not a JSON object: %w", err)
	}
	for k := range raw {
		if !errandFields[k] {
			return nil, fmt.Errorf("not a valid errand: it has a field %q, which errands do not have", k)
		}
	}
	if err := mailbox.CheckStructure(data); err != nil {
		return nil, err
	}
	var e Errand
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("not a valid errand: %w", err)
	}
	return &e, nil
}

// Refusal says why an errand was not done.
type Refusal string

// The refusals of an errand.
const (
	// RefusedInvalid is an errand that is not valid (Answer.Reason
	// says how), or not its outbox owner's.
	RefusedInvalid Refusal = "invalid"
	// RefusedRight is an errand the rules do not give its agent.
	RefusedRight Refusal = "right"
	// RefusedHeld is a lock another holds: Answer.Holder on
	// Answer.Host.
	RefusedHeld Refusal = "held"
	// RefusedHubAway is an errand the hub was out of reach for: nothing was
	// changed.
	RefusedHubAway Refusal = "hub-away"
	// RefusedNoHub is an errand to a master that joins no hub.
	RefusedNoHub Refusal = "no-hub"
	// RefusedFailed is an errand the hub did not do, for Answer.Reason.
	RefusedFailed Refusal = "failed"
)

// Answer is the master's answer to an errand.
type Answer struct {
	// Refused is why it was not done; "" when it was.
	Refused Refusal `json:"refused,omitempty"`
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
func (b *Box) answerPath(agent, id string) string {
	return filepath.Join(b.store.SentDir(agent), id+answerSuffix)
}

// Reply writes the answer to the agent's errand id beside its sent
// messages, where the agent may read it. It replaces an answer there: an
// errand performed again after a crash is answered again.
func (b *Box) Reply(agent, id string, a Answer) error {
	data, err := json.Marshal(a)
	if err != nil {
		return err
	}
	// Not synced, as the errand is not: its command reads it at once.
	if err := atomicfile.WriteFile(b.answerPath(agent, id), data, atomicfile.Options{TmpDir: b.store.StageFor(agent)}); err != nil {
		return fmt.Errorf("answer the errand %s of %s: %w", id, agent, err)
	}
	return nil
}

// ReadAnswer reads the answer to the agent's errand id; ok is false while
// there is none.
func (b *Box) ReadAnswer(agent, id string) (a Answer, ok bool, err error) {
	f, err := os.OpenFile(b.answerPath(agent, id), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return a, false, nil
	}
	if err != nil {
		return a, false, fmt.Errorf("read the master's answer: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err == nil && len(data) > MaxSize {
		err = fmt.Errorf("it is over %d bytes", MaxSize)
	}
	if err == nil {
		err = json.Unmarshal(data, &a)
	}
	if err != nil {
		return Answer{}, false, fmt.Errorf("read the master's answer %s: %w", f.Name(), err)
	}
	return a, true, nil
}

// RemoveAnswer removes the answer to the agent's errand id, once read long
// enough ago.
func (b *Box) RemoveAnswer(agent, id string) {
	os.Remove(b.answerPath(agent, id))
}

// SweepAnswers removes the answers in the agent's sent/ folder written
// before cutoff: what a master that stopped did not remove.
func (b *Box) SweepAnswers(agent string, cutoff time.Time) {
	dir := b.store.SentDir(agent)
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
