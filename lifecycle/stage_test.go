package lifecycle

import (
	"os"
	"path/filepath"
	"testing"

	"switchboard/workspace"
)

// TestStageBinaryTakesItsCompanionsOrNone: the programs beside switchboard
// are staged with it; staged again from a switchboard with none beside it
// (as go run builds one), the copies of the earlier build go, so that the
// team's master never runs a switchboard-link of another build.
func TestStageBinaryTakesItsCompanionsOrNone(t *testing.T) {
	ws := workspace.New(t.TempDir())
	installed := t.TempDir()
	for _, name := range []string{"switchboard", HubProgram, LinkProgram} {
		if err := os.WriteFile(filepath.Join(installed, name), []byte("#!/bin/sh\n# "+name+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := StageBinary(ws, filepath.Join(installed, "switchboard")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{HubProgram, LinkProgram} {
		if _, err := os.Stat(filepath.Join(ws.BinDir(), name)); err != nil {
			t.Errorf("%s installed beside switchboard was not staged: %v", name, err)
		}
	}
	alone := filepath.Join(t.TempDir(), "switchboard")
	if err := os.WriteFile(alone, []byte("#!/bin/sh\n# built by go run\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := StageBinary(ws, alone); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{HubProgram, LinkProgram} {
		if _, err := os.Stat(filepath.Join(ws.BinDir(), name)); !os.IsNotExist(err) {
			t.Errorf("the %s staged with an earlier switchboard is still staged beside one that came alone (%v)", name, err)
		}
	}
	if got, _ := os.ReadFile(ws.Binary()); string(got) != "#!/bin/sh\n# built by go run\n" {
		t.Errorf("the staged switchboard is %q, not the one staged last", got)
	}
}
