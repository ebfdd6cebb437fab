package approvals

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/uuid"

	"switchboard/internal/atomicfile"
	"switchboard/mailbox"
	"switchboard/workspace"
)

// ErrNotFound is returned for an id no approval has.
var ErrNotFound = errors.New("no such approval")

// ErrAmbiguous is returned by Revoke for an id that starts more than one
// approval's.
var ErrAmbiguous = errors.New("more than one approval's id starts so: give more of it")

// Store is the approvals of one workspace, in one file.
type Store struct {
	path string
}

// NewStore returns the approvals kept in the file at path.
func NewStore(path string) *Store { return &Store{path: path} }

// Of are the approvals of the team in ws, in the file its layout names.
func Of(ws *workspace.Workspace) *Store { return NewStore(ws.ApprovalsPath()) }

// List returns every approval, oldest first.
func (s *Store) List() ([]Approval, error) {
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read approvals: %w", err)
	}
	var all []Approval
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, fmt.Errorf("approvals %s are damaged (%w); move the file away to start afresh", s.path, err)
	}
	return all, nil
}

// Find returns the newest approval of agent that a call matches.
func (s *Store) Find(agent, tool, command string) (Approval, bool, error) {
	all, err := s.List()
	if err != nil {
		return Approval{}, false, err
	}
	for _, a := range slices.Backward(all) {
		if a.Agent == agent && a.Matches(tool, command) {
			return a, true, nil
		}
	}
	return Approval{}, false, nil
}

// Remember records a decision, replacing one for the same agent, tool and
// rule, and returns it with its id.
func (s *Store) Remember(a Approval) (Approval, error) {
	a.ID = strings.SplitN(uuid.NewString(), "-", 2)[0]
	err := s.update(func(all []Approval) ([]Approval, error) {
		all = slices.DeleteFunc(all, func(b Approval) bool {
			return b.Agent == a.Agent && Canonical(b.Tool) == Canonical(a.Tool) && b.Rule == a.Rule
		})
		return append(all, a), nil
	})
	return a, err
}

// Revoke removes the approval with the id (or a unique prefix of it) and
// returns it, unless may, when given, returns an error for it: the check
// and the removal are one step, under the file's lock.
func (s *Store) Revoke(id string, may func(Approval) error) (Approval, error) {
	var revoked Approval
	err := s.update(func(all []Approval) ([]Approval, error) {
		match := func(a Approval) bool { return id != "" && strings.HasPrefix(a.ID, id) }
		i := slices.IndexFunc(all, match)
		if i < 0 {
			return nil, fmt.Errorf("%w %q", ErrNotFound, id)
		}
		if slices.IndexFunc(all[i+1:], match) >= 0 {
			return nil, fmt.Errorf("%w: %q", ErrAmbiguous, id)
		}
		if may != nil {
			if err := may(all[i]); err != nil {
				return nil, err
			}
		}
		revoked = all[i]
		return slices.Delete(all, i, i+1), nil
	})
	return revoked, err
}

func (s *Store) update(change func([]Approval) ([]Approval, error)) error {
	return mailbox.WithLock(s.path+".lock", func() error {
		all, err := s.List()
		if err != nil {
			return err
		}
		if all, err = change(all); err != nil {
			return err
		}
		data, err := json.MarshalIndent(all, "", "  ")
		if err != nil {
			return fmt.Errorf("encode approvals: %w", err)
		}
		if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
			return fmt.Errorf("write approvals: %w", err)
		}
		return atomicfile.WriteFile(s.path, append(data, '\n'), atomicfile.Options{})
	})
}
