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

// TestOldSettingsMoveOutOfTheMailboxes: settings an earlier version kept
// in mailboxes/hub.json are moved to the config folder the first time they
// are read, whole; and stay where they are while they cannot be moved.
func TestOldSettingsMoveOutOfTheMailboxes(t *testing.T) {
	config := configHome(t)
	ws := newTeam(t)
	old := filepath.Join(ws.Store.Dir, "hub.json")
	want := HubSettings{URL: secretURL, Host: "laptop", Team: "blue", CA: "/etc/hub-ca.pem"}
	if err := writeJSONFile(old, "old settings", want, false); err != nil {
		t.Fatal(err)
	}

	// The config folder cannot be made (a file stands in its place):
	// the old settings are read by no one, and lost by no one.
	if err := os.WriteFile(filepath.Join(config, "switchboard"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ws.Hub(); err == nil {
		t.Error("settings that could not be moved were read without an error")
	}
	if _, err := os.Stat(old); err != nil {
		t.Fatalf("the old settings went, though they could not be moved: %v", err)
	}
	os.Remove(filepath.Join(config, "switchboard"))

	for range 2 { // the second read finds them moved
		got, ok, err := ws.Hub()
		if err != nil || !ok || got != want {
			t.Fatalf("Hub() = %+v, %v, %v; want %+v", got, ok, err, want)
		}
		if _, err := os.Stat(old); !os.IsNotExist(err) {
			t.Fatalf("the old settings are still in the mailboxes: %v", err)
		}
	}
	path, _ := ws.HubFile()
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the moved settings: %v; want a private file at %s", err, path)
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
