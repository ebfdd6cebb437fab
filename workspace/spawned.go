package workspace

import (
	"path/filepath"
	"time"

	"switchboard/mailbox"
)

// Spawned is an agent started at run time by `switchboard spawn`.
type Spawned struct {
	Profile string    `json:"profile"`
	Parent  string    `json:"parent"`
	Task    string    `json:"task,omitempty"`
	Started time.Time `json:"started"`
	// What spawn gave over the profile: its model, instructions added to
	// the profile's, and environment.
	Model  string            `json:"model,omitempty"`
	System string            `json:"system,omitempty"`
	Env    map[string]string `json:"env,omitempty"`
	// Worktree gives it a git worktree of its own, whatever its profile says.
	Worktree bool `json:"worktree,omitempty"`
	// Cancelled says who cancelled it and why; a cancelled agent stays so.
	Cancelled *Cancellation `json:"cancelled,omitempty"`
}

// Cancellation is who stopped a spawned agent's work, when and why.
type Cancellation struct {
	By     string    `json:"by"`
	Reason string    `json:"reason,omitempty"`
	At     time.Time `json:"at"`
}

// SpawnedFile is the registry of spawned agents. It outlives the tmux
// session, so that `up` starts them again.
func (w *Workspace) SpawnedFile() string { return filepath.Join(w.Store.Dir, "spawned.json") }

// Spawned reads the registry; no file is no spawned agents.
func (w *Workspace) Spawned() (map[string]Spawned, error) {
	return readSpawned(w.SpawnedFile())
}

func readSpawned(path string) (map[string]Spawned, error) {
	spawned := map[string]Spawned{}
	if _, err := readJSONFile(path, "spawned agents", &spawned); err != nil {
		return nil, err
	}
	return spawned, nil
}

func writeSpawned(path string, spawned map[string]Spawned, durable bool) error {
	return writeJSONFile(path, "spawned agents", spawned, durable)
}

// UpdateSpawned changes the registry under a lock, so that agents spawning
// at once do not lose each other, and publishes it atomically.
func (w *Workspace) UpdateSpawned(change func(map[string]Spawned) error) error {
	return mailbox.WithLock(filepath.Join(w.Store.Dir, ".spawned.lock"), func() error {
		spawned, err := w.Spawned()
		if err != nil {
			return err
		}
		if err := change(spawned); err != nil {
			return err
		}
		return writeSpawned(w.SpawnedFile(), spawned, w.Store.Durable)
	})
}
