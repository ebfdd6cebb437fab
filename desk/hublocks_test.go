package desk

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"switchboard/bulletin"
	"switchboard/hub"
	"switchboard/workspace"
)

// TestALockTakenOnOneHostIsRefusedOnTheOther: two workspaces of one team
// across machines share their locks and their state through the hub.
func TestALockTakenOnOneHostIsRefusedOnTheOther(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // the hosts' settings, never the user's
	srv, err := hub.Start(context.Background(), hub.ServerConfig{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	desks := map[string]*Desk{}
	for host, agent := range map[string]string{"laptop": "developer_agent", "gpu": "tester_agent"} {
		ws, _ := defaultTeam(t)
		if err := ws.SetHub(workspace.HubSettings{URL: srv.URL(host), Host: host}); err != nil {
			t.Fatal(err)
		}
		r, err := ws.Rules()
		if err != nil {
			t.Fatal(err)
		}
		desks[host] = New(ws, r, agent)
	}
	if err := desks["laptop"].Lock("db migrations", "adding a column"); err != nil {
		t.Fatal(err)
	}
	err = desks["gpu"].Lock("db migrations", "me too")
	if !errors.Is(err, bulletin.ErrHeld) || !strings.Contains(err.Error(), "developer_agent on host laptop") {
		t.Fatalf("the lock on the other host: %v; want it refused, naming its holder", err)
	}
	if _, err := desks["laptop"].Unlock("db migrations", false); err != nil {
		t.Fatal(err)
	}
	if err := desks["gpu"].Lock("db migrations", "now mine"); err != nil {
		t.Errorf("the lock once released: %v", err)
	}
	// Shared state is the hub's, for every host.
	if err := desks["laptop"].SetState("release version", json.RawMessage(`"2.1"`)); err != nil {
		t.Fatal(err)
	}
	if v, err := desks["gpu"].State("release version"); err != nil || string(v) != `"2.1"` {
		t.Errorf("the other host reads %s, %v; want \"2.1\"", v, err)
	}
	// The board is the team's: an overseer on one host sets the status, one
	// on the other adds a warning, and each bulletin shows both.
	laptopMaster := New(desks["laptop"].ws, desks["laptop"].rules, "master_agent")
	if _, err := laptopMaster.ChangeBulletin(BulletinChange{Status: "blocked", Phase: "release"}); err != nil {
		t.Fatal(err)
	}
	gpuMaster := New(desks["gpu"].ws, desks["gpu"].rules, "master_agent")
	if _, err := gpuMaster.ChangeBulletin(BulletinChange{Warn: "main is frozen"}); err != nil {
		t.Fatal(err)
	}
	if b, _ := desks["gpu"].ws.Bulletin().Read(); b.SystemStatus != "blocked" || b.CurrentPhase != "release" || len(b.Warnings) != 1 {
		t.Errorf("gpu's bulletin: status %q, phase %q, warnings %v; want the team's board", b.SystemStatus, b.CurrentPhase, b.Warnings)
	}
	srv.Close()
	if err := desks["gpu"].SetState("release version", json.RawMessage(`"3"`)); !errors.Is(err, ErrHubAway) {
		t.Errorf("a value set with the hub away: %v; want it refused", err)
	}
	if err := desks["laptop"].Lock("release notes", ""); !errors.Is(err, ErrHubAway) {
		t.Errorf("a lock with the hub away: %v; want it refused", err)
	}
	if b, _ := desks["laptop"].ws.Bulletin().Read(); len(b.SharedResources) != 0 {
		t.Errorf("a lock refused on the hub was taken here: %v", b.SharedResources)
	}
}
