package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"switchboard/atomicfile"
	"time"

	"switchboard/mailbox"
	"switchboard/rules"
)

// Spawned is an agent started at run time by `switchboard spawn`.
type Spawned struct {
	Profile string    `json:"profile"`
	Parent  string    `json:"parent"`
	Task    string    `json:"task,omitempty"`
	Started time.Time `json:"started"`
}

// SpawnedPath is the registry of spawned agents, mailboxes/spawned.json. It
// outlives the tmux session, so that `up` starts them again.
func SpawnedPath(store *mailbox.Store) string { return filepath.Join(store.Dir, "spawned.json") }

// LoadSpawned reads the registry; no file is no spawned agents.
func LoadSpawned(store *mailbox.Store) (map[string]Spawned, error) {
	data, err := os.ReadFile(SpawnedPath(store))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]Spawned{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read spawned agents: %w", err)
	}
	spawned := map[string]Spawned{}
	if err := json.Unmarshal(data, &spawned); err != nil {
		return nil, fmt.Errorf("read spawned agents: %s: %w", SpawnedPath(store), err)
	}
	return spawned, nil
}

// UpdateSpawned changes the registry under a lock, so that agents spawning
// at once do not lose each other, and publishes it atomically.
func UpdateSpawned(store *mailbox.Store, change func(map[string]Spawned) error) error {
	return mailbox.WithLock(filepath.Join(store.Dir, ".spawned.lock"), func() error { return updateSpawned(store, change) })
}

func updateSpawned(store *mailbox.Store, change func(map[string]Spawned) error) error {
	spawned, err := LoadSpawned(store)
	if err != nil {
		return err
	}
	if err := change(spawned); err != nil {
		return err
	}
	data, err := json.MarshalIndent(spawned, "", "  ")
	if err != nil {
		return fmt.Errorf("encode spawned agents: %w", err)
	}
	return atomicfile.WriteFile(SpawnedPath(store), append(data, '\n'), atomicfile.Options{Durable: store.Durable})
}

// LoadRules loads the workspace's rules together with its spawned agents:
// what the master routes by and every command checks against.
func LoadRules(workspace string) (*rules.Rules, error) {
	r, err := rules.Load(filepath.Join(workspace, rules.FileName))
	if err != nil {
		return nil, err
	}
	spawned, err := LoadSpawned(mailbox.NewStore(workspace))
	if err != nil {
		return nil, err
	}
	if len(spawned) == 0 {
		return r, nil
	}
	seen := make(map[string]rules.Spawned, len(spawned))
	for name, s := range spawned {
		seen[name] = rules.Spawned{Profile: s.Profile, Parent: s.Parent}
	}
	return r.WithSpawned(seen), nil
}
