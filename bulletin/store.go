package bulletin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Store is the bulletin of one workspace.
type Store struct {
	dir string
}

// NewStore returns the bulletin under a mailboxes folder.
func NewStore(mailboxes string) *Store {
	return &Store{dir: filepath.Join(mailboxes, "global_bulletin")}
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
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("create bulletin folder: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(s.dir, ".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open bulletin lock: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock bulletin: %w", err)
	}
	b, err := s.Read()
	if err != nil {
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
	tmp, err := os.CreateTemp(s.dir, ".status-*")
	if err != nil {
		return fmt.Errorf("write bulletin: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("write bulletin: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write bulletin: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.Path()); err != nil {
		return fmt.Errorf("publish bulletin: %w", err)
	}
	return nil
}
