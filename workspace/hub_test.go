package workspace

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// configHome gives the test a config folder of its own: nothing is written
// into the user's.
func configHome(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	return dir
}

const secretURL = "nats://laptop:s3cret-password@10.0.0.5:4222"

// TestTheHubSettingsAreKeptOutsideTheWorkspace: the settings, which hold
// the host's password, are written into the user's config folder, private,
// and nowhere in the workspace; only the host's name is, for the commands.
func TestTheHubSettingsAreKeptOutsideTheWorkspace(t *testing.T) {
	config := configHome(t)
	ws := newTeam(t)
	want := HubSettings{URL: secretURL, Host: "laptop", Team: "main"}
	if err := ws.SetHub(want); err != nil {
		t.Fatal(err)
	}
	path, err := ws.HubFile()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(path, filepath.Join(config, "switchboard")+string(filepath.Separator)) {
		t.Errorf("the settings are kept in %s; want them under the config folder %s", path, config)
	}
	for p, mode := range map[string]fs.FileMode{path: 0o600, filepath.Dir(path): 0o700} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != mode {
			t.Errorf("%s: %v, %v; want mode %v", p, fi.Mode().Perm(), err, mode)
		}
	}
	if got, ok, err := ws.Hub(); err != nil || !ok || got != want {
		t.Errorf("Hub() = %+v, %v, %v; want %+v", got, ok, err, want)
	}
	if err := ws.WriteHubHost(HubHost{Host: want.Host, Team: want.Team}); err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(ws.Root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if data, _ := os.ReadFile(p); bytes.Contains(data, []byte("s3cret")) {
				t.Errorf("%s in the workspace holds the password", p)
			}
		}
		return nil
	})
	if h, ok, err := ws.ReadHubHost(); err != nil || !ok || h.Host != "laptop" {
		t.Errorf("ReadHubHost() = %+v, %v, %v; want laptop", h, ok, err)
	}
	if err := ws.RemoveHubHost(); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := ws.ReadHubHost(); ok {
		t.Error("the host's name stayed after RemoveHubHost")
	}
}

// TestTwoWorkspacesOfOneNameKeepTheirOwnSettings: two folders called
// "project" on one machine do not share their settings.
func TestTwoWorkspacesOfOneNameKeepTheirOwnSettings(t *testing.T) {
	configHome(t)
	var spaces []*Workspace
	for _, host := range []string{"laptop", "gpu"} {
		root := filepath.Join(t.TempDir(), "project")
		if err := os.Mkdir(root, 0o755); err != nil {
			t.Fatal(err)
		}
		ws := New(root)
		if err := ws.SetHub(HubSettings{URL: "nats://" + host + ":pw@hub:4222", Host: host}); err != nil {
			t.Fatal(err)
		}
		spaces = append(spaces, ws)
	}
	a, _ := spaces[0].HubFile()
	b, _ := spaces[1].HubFile()
	if a == b || !strings.HasPrefix(filepath.Base(a), "project-") {
		t.Errorf("the two workspaces' settings: %s and %s; want two files named after the folder", a, b)
	}
	for i, host := range []string{"laptop", "gpu"} {
		if s, _, err := spaces[i].Hub(); err != nil || s.Host != host {
			t.Errorf("workspace %d reads host %q, %v; want %s", i, s.Host, err, host)
		}
	}
}

// TestSettingsThatCameWithTheWorkspaceAreNeverTaken: a hub.json in
// mailboxes/ (an earlier version kept the settings there, so a cloned
// repository or an archive may bring one) would join a stranger's hub and
// claim the team's agents there; the workspace joins no hub for it, and
// the file stays for doctor to point at.
func TestSettingsThatCameWithTheWorkspaceAreNeverTaken(t *testing.T) {
	configHome(t)
	ws := newTeam(t)
	planted := HubSettings{URL: "nats://laptop:stranger@hub.example.com:4222", Host: "laptop"}
	if err := writeJSONFile(ws.StrayHubFile(), "planted settings", planted, false); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := ws.Hub(); err != nil || ok || got.URL != "" {
		t.Fatalf("Hub() = %+v, %v, %v; want no hub joined", got, ok, err)
	}
	if _, err := os.Stat(ws.StrayHubFile()); err != nil {
		t.Fatalf("the planted file went: %v; doctor points at it, the person removes it", err)
	}
	path, _ := ws.HubFile()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("settings were written in the config folder from the planted file: %v", err)
	}
}

// TestAWorkspaceWithoutSettingsJoinsNoHub, also where the user has no
// config folder at all.
func TestAWorkspaceWithoutSettingsJoinsNoHub(t *testing.T) {
	configHome(t)
	ws := newTeam(t)
	if _, ok, err := ws.Hub(); ok || err != nil {
		t.Errorf("Hub() of a workspace that joins none: %v, %v", ok, err)
	}
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("HOME", "")
	if _, ok, err := ws.Hub(); ok || err != nil {
		t.Errorf("Hub() without a config folder: %v, %v", ok, err)
	}
	if err := ws.SetHub(HubSettings{URL: secretURL, Host: "laptop"}); err == nil || !strings.Contains(err.Error(), "XDG_CONFIG_HOME") {
		t.Errorf("SetHub without a config folder: %v; want it refused, saying what to set", err)
	}
}
