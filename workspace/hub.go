package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"switchboard/internal/atomicfile"
)

// HubSettings join the workspace's master to a team across machines: the
// hub's URL (with this host's credentials in it), this host's name, and the
// team's name on the hub ("" is the hub's default).
type HubSettings struct {
	URL  string `json:"url"`
	Host string `json:"host"`
	Team string `json:"team,omitempty"`
}

// HubFile holds the HubSettings; it holds a password, so only its owner
// reads it.
func (w *Workspace) HubFile() string { return filepath.Join(w.Store.Dir, "hub.json") }

// HubTeamFile is the whole team as the hub last showed it, every host's
// agents with their state, which the master writes for the commands that
// list the team.
func (w *Workspace) HubTeamFile() string { return filepath.Join(w.Store.Dir, ".hub", "team.json") }

// Hub reads the settings; ok is false when the workspace joins no hub.
func (w *Workspace) Hub() (s HubSettings, ok bool, err error) {
	data, err := os.ReadFile(w.HubFile())
	if errors.Is(err, fs.ErrNotExist) {
		return HubSettings{}, false, nil
	}
	if err != nil {
		return HubSettings{}, false, fmt.Errorf("read the hub settings: %w", err)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return HubSettings{}, false, fmt.Errorf("read the hub settings %s: %w", w.HubFile(), err)
	}
	return s, s.URL != "", nil
}

// SetHub keeps the settings, so that the next master joins by itself.
func (w *Workspace) SetHub(s HubSettings) error {
	if err := os.MkdirAll(w.Store.Dir, 0o755); err != nil {
		return fmt.Errorf("keep the hub settings: %w", err)
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("keep the hub settings: %w", err)
	}
	return atomicfile.WriteFile(w.HubFile(), append(data, '\n'), atomicfile.Options{Durable: w.Store.Durable}) // made 0600, as every temporary file
}
