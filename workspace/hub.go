package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"switchboard/internal/atomicfile"
)

// HubSettings join the workspace's master to a team across machines: the
// hub's URL (with this host's credentials in it), this host's name, the
// team's name on the hub ("" is the hub's default), and the authority of
// its certificate.
type HubSettings struct {
	URL  string `json:"url"`
	Host string `json:"host"`
	Team string `json:"team,omitempty"`
	// CA is a PEM file of the authority that signed the hub's TLS
	// certificate, when the system does not trust it (a self-signed one).
	CA string `json:"ca,omitempty"`
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

// HubMember is an agent of the team across machines as the hub last showed
// it.
type HubMember struct {
	Agent     string `json:"agent"`
	Host      string `json:"host"`
	State     string `json:"state"`
	Reachable bool   `json:"reachable"`
	// Profile and Parent are set for an agent spawned at run time.
	Profile string `json:"profile,omitempty"`
	Parent  string `json:"parent,omitempty"`
}

// HubTeam is the whole team as the master last had it from the hub.
type HubTeam struct {
	Host    string      `json:"host"` // this host
	At      time.Time   `json:"at"`
	Members []HubMember `json:"members"`
}

// WriteHubTeam keeps the team as the hub shows it (HubTeamFile).
func (w *Workspace) WriteHubTeam(t HubTeam) error {
	data, err := json.MarshalIndent(t, "", "  ")
	if err == nil {
		err = os.MkdirAll(filepath.Dir(w.HubTeamFile()), 0o700)
	}
	if err == nil {
		err = atomicfile.WriteFile(w.HubTeamFile(), append(data, '\n'), atomicfile.Options{})
	}
	if err != nil {
		return fmt.Errorf("keep the team's hosts in %s: %w", w.HubTeamFile(), err)
	}
	return nil
}

// ReadHubTeam reads the team as the master last had it from the hub; ok is
// false when there is none.
func (w *Workspace) ReadHubTeam() (t HubTeam, ok bool, err error) {
	data, err := os.ReadFile(w.HubTeamFile())
	if errors.Is(err, fs.ErrNotExist) {
		return HubTeam{}, false, nil
	}
	if err != nil {
		return HubTeam{}, false, fmt.Errorf("read the team's hosts: %w", err)
	}
	if err := json.Unmarshal(data, &t); err != nil {
		return HubTeam{}, false, fmt.Errorf("read the team's hosts %s: %w", w.HubTeamFile(), err)
	}
	return t, true, nil
}

// HubSpawnedFile holds the agents other hosts spawned at run time, as the
// hub last showed them: the rules know them as this host's own spawned ones.
// The master writes it only when they change.
func (w *Workspace) HubSpawnedFile() string {
	return filepath.Join(w.Store.Dir, ".hub", "spawned.json")
}

// HubSpawned reads HubSpawnedFile; none is no agents.
func (w *Workspace) HubSpawned() (map[string]Spawned, error) {
	return readSpawned(w.HubSpawnedFile())
}

// WriteHubSpawned keeps the agents other hosts spawned.
func (w *Workspace) WriteHubSpawned(spawned map[string]Spawned) error {
	return writeSpawned(w.HubSpawnedFile(), spawned, w.Store.Durable)
}

// SpawnedElsewhere are the agents other hosts spawned at run time.
func (t HubTeam) SpawnedElsewhere() map[string]Spawned {
	out := make(map[string]Spawned)
	for _, m := range t.Members {
		if m.Host != t.Host && m.Profile != "" {
			out[m.Agent] = Spawned{Profile: m.Profile, Parent: m.Parent}
		}
	}
	return out
}
