package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"switchboard/rules"
)

// A rules file naming no agent of the team does not load, for every
// command and for the master alike; a name is an agent's by its entry in
// the file or by its profile in agents/.
func TestRulesRefuseANameOfNoAgent(t *testing.T) {
	ws := newTeam(t)
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ws.Root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws.Root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(rules.FileName, rulesText+"oversight: [docs_agent]\n")
	_, err := ws.Rules()
	var bad *rules.Error
	if !errors.As(err, &bad) || bad.Line != 5 || !strings.Contains(bad.Msg, `oversight: "docs_agent" is not an agent of this team`) {
		t.Fatalf("Rules() with a name of no agent = %v; want a rules error at line 5", err)
	}
	if _, err := ws.RulesFile(); !errors.As(err, &bad) {
		t.Errorf("RulesFile() = %v; want the same error", err)
	}

	write(filepath.Join(ProfilesDir, "docs_agent.yaml"), "kind: shell\n")
	if _, err := ws.Rules(); err != nil {
		t.Errorf("Rules() with docs_agent's profile in agents/ = %v; want them loaded", err)
	}
	if _, err := ws.RulesFrom(ws.LoadedRulesPath(), []byte(rulesText+"interrupts: [developer_agnet]\n")); !errors.As(err, &bad) || !strings.Contains(bad.Msg, "did you mean developer_agent?") {
		t.Errorf("RulesFrom with a typo = %v; want the agent it meant", err)
	}
}

// The mailboxes folder keeps its mail out of git by a .gitignore of its
// own; one the user changed is left alone.
func TestMakeMailboxesKeepsTheMailOutOfGit(t *testing.T) {
	ws := newTeam(t)
	if err := ws.MakeMailboxes(); err != nil {
		t.Fatal(err)
	}
	ignore := filepath.Join(ws.Store.Dir, ".gitignore")
	data, err := os.ReadFile(ignore)
	if err != nil || !strings.HasSuffix(string(data), "\n*\n") {
		t.Fatalf("mailboxes/.gitignore = %q, %v; want it to ignore everything", data, err)
	}
	if info, err := os.Stat(ws.Store.Dir); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("mailboxes/ = %v, %v; want it private (0700)", info, err)
	}
	if err := os.WriteFile(ignore, []byte("*\n!keep.txt\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := ws.MakeMailboxes(); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(ignore); string(data) != "*\n!keep.txt\n" {
		t.Errorf("MakeMailboxes rewrote the user's mailboxes/.gitignore: %q", data)
	}
	if _, err := os.Stat(filepath.Join(ws.Root, ".gitignore")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("MakeMailboxes touched the workspace's own .gitignore: %v", err)
	}
}
