package bulletin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"switchboard/internal/atomicfile"

	"switchboard/mailbox"
	"switchboard/workspace"
)

// Store is the bulletin of one workspace.
type Store struct {
	dir string
}

// NewStore returns the bulletin kept in the folder dir.
func NewStore(dir string) *Store {
	return &Store{dir: dir}
}

// Of is the bulletin of the team in ws, in the folder its layout names.
func Of(ws *workspace.Workspace) *Store { return NewStore(ws.BulletinDir()) }

// Ensure makes the bulletin's folder, so that it can be given to an agent
// run in a container before anyone wrote the bulletin.
func (s *Store) Ensure() error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("create bulletin folder: %w", err)
	}
	return nil
}

// Path is the bulletin file.
func (s *Store) Path() string { return filepath.Join(s.dir, "status.json") }

// Read returns the bulletin without locking: it is only ever replaced whole.
// A workspace without one reads as an empty bulletin.
func (s *Store) Read() (*Bulletin, error) {
	data, err := os.ReadFile(s.Path())
	if errors.Is(err, fs.ErrNotExist) {
		return New(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read bulletin: %w", err)
	}
	b := &Bulletin{}
	if err := json.Unmarshal(data, b); err != nil {
		return nil, fmt.Errorf("bulletin %s is damaged (%w); move it away and the team starts a new one", s.Path(), err)
	}
	b.fill()
	return b, nil
}

// Update changes the bulletin: it takes the write lock, reads the current
// document, lets change edit it, and publishes the result atomically. When
// change returns an error nothing is written and the error is returned.
func (s *Store) Update(change func(*Bulletin) error) error {
	return mailbox.WithLock(s.lockPath(), func() error { return s.update(change) })
}

// lockPath is the lock the bulletin and the shared state are changed
// under.
func (s *Store) lockPath() string { return filepath.Join(s.dir, ".lock") }

func (s *Store) update(change func(*Bulletin) error) error {
	b, err := s.Read()
	if err != nil {
		return err
	}
	if err := s.moveOldState(b); err != nil {
		return err
	}
	if err := change(b); err != nil {
		return err
	}
	b.UpdatedAt = time.Now().UTC()
	b.fill()
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return fmt.Errorf("encode bulletin: %w", err)
	}
	if err := atomicfile.WriteFile(s.Path(), append(data, '\n'), atomicfile.Options{}); err != nil {
		return fmt.Errorf("write bulletin: %w", err)
	}
	return nil
}
