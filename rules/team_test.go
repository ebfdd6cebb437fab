package rules

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"switchboard/workspace"
)

const teamText = `allowed_interactions:
  developer_agent:
    can_send_to: ["*"]
    can_receive_from: ["*"]
`

// newTeam is a workspace whose rules file is text.
func newTeam(t *testing.T, text string) *workspace.Workspace {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, FileName), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return workspace.New(root)
}

// A rules file naming no agent of the team does not load, for every
// command and for the master alike; a name is an agent's by its entry in
// the file or by its profile in agents/.
func TestRulesRefuseANameOfNoAgent(t *testing.T) {
	ws := newTeam(t, teamText+"oversight: [docs_agent]\n")
	_, err := LoadTeam(ws)
	var bad *Error
	if !errors.As(err, &bad) || bad.Line != 5 || !strings.Contains(bad.Msg, `oversight: "docs_agent" is not an agent of this team`) {
		t.Fatalf("LoadTeam with a name of no agent = %v; want a rules error at line 5", err)
	}
	if _, err := LoadTeamFile(ws); !errors.As(err, &bad) {
		t.Errorf("LoadTeamFile = %v; want the same error", err)
	}

	if err := os.MkdirAll(ws.Profiles(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ws.ProfilePath("docs_agent"), []byte("kind: shell\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadTeam(ws); err != nil {
		t.Errorf("LoadTeam with docs_agent's profile in agents/ = %v; want them loaded", err)
	}
	if _, err := ParseTeam(ws, ws.LoadedRulesPath(), []byte(teamText+"interrupts: [developer_agnet]\n")); !errors.As(err, &bad) || !strings.Contains(bad.Msg, "did you mean developer_agent?") {
		t.Errorf("ParseTeam with a typo = %v; want the agent it meant", err)
	}
}

func TestRulesKnowTheSpawnedAgents(t *testing.T) {
	ws := newTeam(t, teamText)
	err := ws.UpdateSpawned(func(all map[string]workspace.Spawned) error {
		all["helper-1"] = workspace.Spawned{Profile: "developer_agent", Parent: "developer_agent", Started: time.Now()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := LoadTeam(ws)
	if err != nil {
		t.Fatal(err)
	}
	if parent, ok := r.Parent("helper-1"); !ok || parent != "developer_agent" || !r.Knows("helper-1") {
		t.Errorf("the rules do not know helper-1 as developer_agent's helper (parent %q, %v)", parent, ok)
	}
}

// A rules file that is not there is ErrNoRules, for the team's rules and
// for the rules file alone.
func TestAMissingRulesFileIsErrNoRules(t *testing.T) {
	ws := workspace.New(t.TempDir())
	if _, err := LoadTeam(ws); !errors.Is(err, ErrNoRules) || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), ws.RulesPath()) {
		t.Errorf("LoadTeam without a rules file = %v; want ErrNoRules at %s", err, ws.RulesPath())
	}
	if _, err := LoadTeamFile(ws); !errors.Is(err, ErrNoRules) {
		t.Errorf("LoadTeamFile without a rules file = %v; want ErrNoRules", err)
	}
}
