package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"switchboard/internal/joinline"
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
	// Credentials are what a NATS server of its operator's gave this host,
	// when the URL carries no password: a credentials file's contents, or
	// a user's nkey seed. Kept here, like the password, out of the agents'
	// reach.
	Credentials string `json:"credentials,omitempty"`
}

// HubPasswordEnv is the environment variable in which a host may be given
// its password, with a hub URL that has none: a command line is seen by
// every process of the machine, the environment only by the user's. The
// line a hub prints for each host sets it (joinline).
const HubPasswordEnv = joinline.PasswordEnv

// hubSettingsDir is the folder of every workspace's hub settings, in the
// user's config folder: the URL holds this host's password, so it is kept
// where no agent is given a view (a contained agent sees none of the
// user's config) and where no `git add -A` of the workspace finds it.
const hubSettingsDir = "switchboard/hub"

// HubFile is where the HubSettings of this workspace are kept:
// <user config>/switchboard/hub/<folder name>-<hash of its path>.json, so
// that two workspaces of one machine keep theirs apart. The folder is
// private to the user (0700), the file too (0600).
func (w *Workspace) HubFile() (string, error) {
	config, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the user's config folder, which keeps the hub settings: %w; set XDG_CONFIG_HOME or HOME", err)
	}
	return filepath.Join(config, hubSettingsDir, w.settingsName()+".json"), nil
}

// settingsName names the workspace among the hub settings of a machine:
// its folder's name, for the person who looks, and a hash of its path
// (links resolved, so that one folder reached two ways is one workspace).
func (w *Workspace) settingsName() string {
	path := w.Root
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	sum := sha256.Sum256([]byte(path))
	base := strings.Map(func(r rune) rune {
		if r < 0x80 && (r == '-' || r == '_' || r == '.' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			return r
		}
		return '_'
	}, filepath.Base(path))
	return strings.TrimLeft(base, ".") + "-" + hex.EncodeToString(sum[:4])
}

// StrayHubFile is where versions before the settings moved to the user's
// config folder kept them, inside mailboxes/: a workspace that came with
// one (a cloned repository, an archive) would join a stranger's hub, as
// that file says, if it were read. It never is; doctor points at it.
func (w *Workspace) StrayHubFile() string { return filepath.Join(w.Store.Dir, "hub.json") }

// Hub reads the settings, kept in HubFile by the person's own up or master
// with --hub; ok is false when the workspace joins no hub. Nothing inside
// the workspace is taken for them.
func (w *Workspace) Hub() (s HubSettings, ok bool, err error) {
	path, err := w.HubFile()
	if err != nil {
		// A user without a config folder joins no hub.
		return HubSettings{}, false, nil
	}
	if _, err := readJSONFile(path, "the hub settings", &s); err != nil {
		return HubSettings{}, false, err
	}
	return s, s.URL != "", nil
}

// SetHub keeps the settings, so that the next master joins by itself.
func (w *Workspace) SetHub(s HubSettings) error {
	path, err := w.HubFile()
	if err != nil {
		return err
	}
	if err := writeJSONFile(path, "the hub settings", s, w.Store.Durable); err != nil {
		return err
	}
	// A folder made before, by hand or by another program, may be open to
	// others: the password is not.
	if err := os.Chmod(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("keep the hub settings private: %w", err)
	}
	return nil
}

// HubHost is what commands may know of the team across machines without
// the password: this host's name, and the team's.
type HubHost struct {
	Host string `json:"host"`
	Team string `json:"team,omitempty"`
}

// HubHostFile holds the HubHost of a workspace whose master joins a hub,
// written by that master as it starts: in log/, which a contained agent is
// given to read, so that its commands know to take locks and set the
// team's state through the master.
func (w *Workspace) HubHostFile() string { return filepath.Join(w.Store.Dir, "log", "host.json") }

// WriteHubHost says which host of which team this workspace is: its
// master's doing, as it joins a hub.
func (w *Workspace) WriteHubHost(h HubHost) error {
	return writeJSONFile(w.HubHostFile(), "this host's name", h, w.Store.Durable)
}

// RemoveHubHost says that this workspace's master joins no hub.
func (w *Workspace) RemoveHubHost() error {
	if err := os.Remove(w.HubHostFile()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("forget this host's name: %w", err)
	}
	return nil
}

// ReadHubHost reads which host of which team this workspace is; ok is
// false when its master joins no hub.
func (w *Workspace) ReadHubHost() (h HubHost, ok bool, err error) {
	ok, err = readJSONFile(w.HubHostFile(), "this host's name", &h)
	return h, ok && h.Host != "", err
}

// HubTeamFile is the whole team as the hub last showed it, every host's
// agents with their state, which the master writes for the commands that
// list the team.
func (w *Workspace) HubTeamFile() string { return filepath.Join(w.Store.Dir, ".hub", "team.json") }

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
	Host string `json:"host"` // this host
	// At is when the master last wrote the file or touched it (the file's
	// time of change, which ReadHubTeam gives).
	At      time.Time   `json:"at,omitzero"`
	Members []HubMember `json:"members"`
	// Trouble is why this host cannot take its mail from the hub, when it
	// cannot; the others then see it unreachable.
	Trouble string `json:"trouble,omitempty"`
	// Backlog is how many copies the hub handed this host that it has not
	// acknowledged yet, of BacklogLimit: at the limit the hub hands it no
	// more.
	Backlog      int `json:"backlog,omitempty"`
	BacklogLimit int `json:"backlog_limit,omitempty"`
	// Refused says, of the helpers other hosts announced, those this
	// host's rules do not take in, and why.
	Refused map[string]string `json:"refused,omitempty"`
}

// HubTeamFresh is how long the team as the master last had it stands for
// the team now: the master writes it every beat (5 s) while it reaches the
// hub, so after three beats without it (the hub away, or the master),
// every agent of another host is unreachable for all this host knows.
const HubTeamFresh = 15 * time.Second

// Stale reports whether the team was last written longer than HubTeamFresh
// before now.
func (t HubTeam) Stale(now time.Time) bool { return now.Sub(t.At) > HubTeamFresh }

// WriteHubTeam keeps the team as the hub shows it (HubTeamFile).
func (w *Workspace) WriteHubTeam(t HubTeam) error {
	return writeJSONFile(w.HubTeamFile(), "the team's hosts", t, false)
}

// TouchHubTeam says that the team as the master last wrote it stands now:
// its file's time of change, which ReadHubTeam takes as At.
func (w *Workspace) TouchHubTeam() error {
	now := time.Now()
	return os.Chtimes(w.HubTeamFile(), now, now)
}

// ReadHubTeam reads the team as the master last had it from the hub; ok is
// false when there is none. At is when the master last wrote or touched it.
func (w *Workspace) ReadHubTeam() (t HubTeam, ok bool, err error) {
	ok, err = readJSONFile(w.HubTeamFile(), "the team's hosts", &t)
	if ok {
		if fi, err := os.Stat(w.HubTeamFile()); err == nil && fi.ModTime().After(t.At) {
			t.At = fi.ModTime().UTC()
		}
	}
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
