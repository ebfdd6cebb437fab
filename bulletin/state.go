package bulletin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"

	"switchboard/internal/atomicfile"
	"switchboard/mailbox"
)

// The shared state is a document of its own, state.json beside the
// bulletin: agents store what they like there, and the hooks, which read
// the bulletin before every prompt, never read it. Both documents are
// changed under the bulletin's one lock.

// Bounds of the shared state: one value, and all of them together.
const (
	MaxStateValue = 64 << 10
	MaxState      = 1 << 20
)

// ErrTooBig is a value, or a shared state, over its bound.
var ErrTooBig = errors.New("over the bound")

// StatePath is the shared state's file.
func (s *Store) StatePath() string { return filepath.Join(s.dir, "state.json") }

// ReadState returns the shared state, without locking: it is only ever
// replaced whole.
func (s *Store) ReadState() (map[string]json.RawMessage, error) {
	state := make(map[string]json.RawMessage)
	data, err := os.ReadFile(s.StatePath())
	if errors.Is(err, fs.ErrNotExist) {
		// A workspace of an earlier version kept it in the bulletin.
		b, err := s.Read()
		if err != nil {
			return nil, err
		}
		maps.Copy(state, b.SharedState)
		return state, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read shared state: %w", err)
	}
	if err := json.Unmarshal(data, &state); err != nil {
		return nil, fmt.Errorf("shared state %s is damaged (%w); move it away and the team starts a new one", s.StatePath(), err)
	}
	return state, nil
}

// SetState sets key to a JSON value, refusing a value over MaxStateValue
// and a state that would grow over MaxState (ErrTooBig, wrapped, with the
// bound).
func (s *Store) SetState(key string, value json.RawMessage) error {
	if len(value) > MaxStateValue {
		return fmt.Errorf("the value of %s is %d bytes, %w of %d bytes a value: keep large data in a file, and its path here", key, len(value), ErrTooBig, MaxStateValue)
	}
	return mailbox.WithLock(s.lockPath(), func() error {
		state, err := s.ReadState()
		if err != nil {
			return err
		}
		state[key] = value
		data, err := json.MarshalIndent(state, "", "  ")
		if err != nil {
			return fmt.Errorf("encode shared state: %w", err)
		}
		if len(data) > MaxState {
			return fmt.Errorf("with %s the shared state would be %d bytes, %w of %d bytes in all: remove keys no one needs first", key, len(data), ErrTooBig, MaxState)
		}
		if err := atomicfile.WriteFile(s.StatePath(), append(data, '\n'), atomicfile.Options{}); err != nil {
			return fmt.Errorf("write shared state: %w", err)
		}
		if b, err := s.Read(); err == nil && len(b.SharedState) > 0 {
			// Taken over from a bulletin of an earlier version: it goes.
			return s.update(func(*Bulletin) error { return nil })
		}
		return nil
	})
}

// moveOldState moves the shared state a bulletin of an earlier version
// holds into its own file, once; the caller holds the lock.
func (s *Store) moveOldState(b *Bulletin) error {
	if len(b.SharedState) == 0 {
		return nil
	}
	if _, err := os.Stat(s.StatePath()); errors.Is(err, fs.ErrNotExist) {
		data, err := json.MarshalIndent(b.SharedState, "", "  ")
		if err != nil {
			return fmt.Errorf("encode shared state: %w", err)
		}
		if err := atomicfile.WriteFile(s.StatePath(), append(data, '\n'), atomicfile.Options{}); err != nil {
			return fmt.Errorf("write shared state: %w", err)
		}
	}
	b.SharedState = nil
	return nil
}
