package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"switchboard/internal/atomicfile"
	"switchboard/mailbox"
)

// ProfilesDir is the folder of the agents' profiles, in the workspace.
const ProfilesDir = "agents"

// RulesFileName is the rules file at the root of every workspace: a folder
// that holds one is a workspace (package rules reads it).
const RulesFileName = "communication_rules.yaml"

// Workspace is one team's folder.
type Workspace struct {
	// Root is the folder, absolute.
	Root string
	// Store is its mailboxes.
	Store *mailbox.Store
}

// New returns the workspace at root, which it does not look at.
func New(root string) *Workspace {
	return &Workspace{Root: root, Store: mailbox.NewStore(root)}
}

// ErrNotFound is returned when a folder is not a workspace, or no folder
// above one is.
var ErrNotFound = errors.New("no workspace")

// Open returns the workspace at dir, which must hold a rules file.
func Open(dir string) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	if _, err := os.Stat(filepath.Join(abs, RulesFileName)); err != nil {
		return nil, fmt.Errorf("%w: %s has no %s", ErrNotFound, abs, RulesFileName)
	}
	return New(abs), nil
}

// Find walks up from dir to the first folder holding a rules file.
func Find(dir string) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("find workspace: %w", err)
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, RulesFileName)); err == nil {
			return New(d), nil
		}
		if filepath.Dir(d) == d {
			return nil, fmt.Errorf("%w: no %s in %s or any folder above it", ErrNotFound, RulesFileName, abs)
		}
	}
}

// mailboxesIgnore is the .gitignore of the mailboxes folder: everything in
// it, itself included.
const mailboxesIgnore = "# switchboard's mailboxes: the team's mail, never committed\n*\n"

// MakeMailboxes makes the mailboxes folder, private to the user, with a
// .gitignore in it. A workspace is often a folder of the user's own
// repository, where a `git add -A` would otherwise commit the team's mail;
// the file inside the folder keeps it out without touching the user's own
// .gitignore. One already there is left as it is.
func (w *Workspace) MakeMailboxes() error {
	if err := os.MkdirAll(w.Store.Dir, 0o700); err != nil {
		return fmt.Errorf("make the mailboxes folder: %w", err)
	}
	path := filepath.Join(w.Store.Dir, ".gitignore")
	if _, err := os.Lstat(path); err == nil {
		return nil
	}
	err := atomicfile.Publish(path, []byte(mailboxesIgnore), atomicfile.Options{Durable: w.Store.Durable})
	if err != nil && !errors.Is(err, atomicfile.ErrExists) {
		return fmt.Errorf("keep the mail out of git: %w", err)
	}
	return nil
}

// RulesPath is the team's communication_rules.yaml.
func (w *Workspace) RulesPath() string { return filepath.Join(w.Root, RulesFileName) }

// DemoMarker is the file that marks a workspace up --demo made, which
// down --purge may delete whole.
func (w *Workspace) DemoMarker() string { return filepath.Join(w.Root, ".switchboard-demo") }

// Profiles is the folder of the agents' profiles.
func (w *Workspace) Profiles() string { return filepath.Join(w.Root, ProfilesDir) }

// ProfilePath is where the profile of agent is written: agents/<agent>.yaml
// (a profile may also be read from .yml or .json).
func (w *Workspace) ProfilePath(agent string) string {
	return filepath.Join(w.Profiles(), agent+".yaml")
}

// profileExts are the forms a profile is read from.
var profileExts = []string{".yaml", ".yml", ".json"}

// HasProfile reports whether agents/ holds a profile of agent, in any of
// the forms a profile is read from.
func (w *Workspace) HasProfile(agent string) bool {
	for _, ext := range profileExts {
		if _, err := os.Lstat(filepath.Join(w.Profiles(), agent+ext)); err == nil {
			return true
		}
	}
	return false
}

// ProfileNames are the agents agents/ holds a profile of, by the names of
// the files, which a profile must match; the profiles are not read, so
// that the rules load as fast as before.
func (w *Workspace) ProfileNames() ([]string, error) {
	entries, err := os.ReadDir(w.Profiles())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the profiles: %w", err)
	}
	var names []string
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if !e.IsDir() && !strings.HasPrefix(e.Name(), ".") && slices.Contains(profileExts, ext) {
			names = append(names, strings.TrimSuffix(e.Name(), ext))
		}
	}
	return names, nil
}

// BulletinDir is the folder of the team's bulletin (package bulletin keeps
// it: bulletin.Of).
func (w *Workspace) BulletinDir() string { return filepath.Join(w.Store.Dir, "global_bulletin") }

// ApprovalsPath is the file of the answers parents gave once for all to
// their helpers' permission prompts (package approvals keeps it:
// approvals.Of).
func (w *Workspace) ApprovalsPath() string { return filepath.Join(w.Store.Dir, "approvals.json") }

// MasterLock is the file the running master holds locked.
func (w *Workspace) MasterLock() string { return filepath.Join(w.Store.Dir, ".master.lock") }

// SessionFile is where the team runs in tmux (package lifecycle reads it), and
// SessionLock the file held while it is changed.
func (w *Workspace) SessionFile() string { return filepath.Join(w.Store.Dir, "session.json") }

// SessionLock is held while the session file is changed.
func (w *Workspace) SessionLock() string { return filepath.Join(w.Store.Dir, ".session.lock") }

// UpLock is held by the process that brings the team up in tmux, so that
// two up at once bring up one team.
func (w *Workspace) UpLock() string { return filepath.Join(w.Store.Dir, ".up.lock") }

// BinDir holds the switchboard binary the panes run, a copy that outlives
// the binary of `go run`; a dot name is never an agent's.
func (w *Workspace) BinDir() string { return filepath.Join(w.Store.Dir, ".bin") }

// Binary is the staged switchboard binary in BinDir.
func (w *Workspace) Binary() string { return filepath.Join(w.BinDir(), "switchboard") }

// WiringDir is the folder of an agent's generated hook wiring. Nothing
// outside mailboxes/ is written, so the user's own settings stay as they
// are.
func (w *Workspace) WiringDir(agent string) string {
	return filepath.Join(w.Store.AgentDir(agent), "hooks")
}

// HasMailbox reports whether the agent has a mailbox here: it is, or was,
// an agent of this team.
func (w *Workspace) HasMailbox(agent string) bool {
	info, err := os.Stat(w.Store.AgentDir(agent))
	return err == nil && info.IsDir()
}
