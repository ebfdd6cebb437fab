package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const rulesText = `allowed_interactions:
  developer_agent:
    can_send_to: ["*"]
    can_receive_from: ["*"]
`

func newTeam(t *testing.T) *Workspace {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "communication_rules.yaml"), []byte(rulesText), 0o644); err != nil {
		t.Fatal(err)
	}
	return New(root)
}

func TestFindWalksUpAndSaysWhereItLooked(t *testing.T) {
	ws := newTeam(t)
	deep := filepath.Join(ws.Root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := Find(deep); err != nil || got.Root != ws.Root {
		t.Errorf("Find from below = %v, %v; want %s", got, err, ws.Root)
	}
	outside := t.TempDir()
	if _, err := Find(outside); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "no communication_rules.yaml in "+outside) {
		t.Errorf("Find outside a workspace = %v", err)
	}
	if _, err := Open(outside); !errors.Is(err, ErrNotFound) {
		t.Errorf("Open of a folder without rules = %v; want ErrNotFound", err)
	}
}

// The registries and the staged binary lie inside the mailboxes folder,
// which keeps them out of git.
func TestTheRegistriesAndTheBinaryAreInTheMailboxes(t *testing.T) {
	ws := newTeam(t)
	if !strings.HasPrefix(ws.SpawnedFile(), ws.Store.Dir) || !strings.HasPrefix(ws.Binary(), ws.BinDir()) || !strings.HasPrefix(ws.BinDir(), ws.Store.Dir) {
		t.Error("the registries or the binary are outside the mailboxes folder")
	}
}
