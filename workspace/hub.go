package workspace

import (
	"path/filepath"
	"time"
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
	if _, err := readJSONFile(w.HubFile(), "the hub settings", &s); err != nil {
		return HubSettings{}, false, err
	}
	return s, s.URL != "", nil
}

// SetHub keeps the settings, so that the next master joins by itself.
func (w *Workspace) SetHub(s HubSettings) error {
	return writeJSONFile(w.HubFile(), "the hub settings", s, w.Store.Durable)
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
	return writeJSONFile(w.HubTeamFile(), "the team's hosts", t, false)
}

// ReadHubTeam reads the team as the master last had it from the hub; ok is
// false when there is none.
func (w *Workspace) ReadHubTeam() (t HubTeam, ok bool, err error) {
	ok, err = readJSONFile(w.HubTeamFile(), "the team's hosts", &t)
	return t, ok, err
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
