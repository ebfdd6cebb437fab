package profile

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"switchboard/workspace"
)

func writeProfile(t *testing.T, dir, name, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, workspace.ProfilesDir), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, workspace.ProfilesDir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDefaultTeamProfilesLoad(t *testing.T) {
	dir := t.TempDir()
	if _, err := WriteDefaultTeam(dir, false); err != nil {
		t.Fatal(err)
	}
	profiles, err := LoadProfiles(filepath.Join(dir, workspace.ProfilesDir))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"master_agent": "Master Agent", "developer_agent": "Developer Agent", "reviewer_agent": "Reviewer Agent", "tester_agent": "Tester Agent"}
	if len(profiles) != len(want) {
		t.Fatalf("loaded %d profiles; want %d", len(profiles), len(want))
	}
	for name, display := range want {
		p := profiles[name]
		if p == nil || p.DisplayName != display || p.Kind != KindClaude || !reflect.DeepEqual([]string(p.Command), []string{"claude"}) || p.SystemInstructions == "" {
			t.Errorf("profile %s = %+v; want %q, kind claude, command claude, instructions", name, p, display)
		}
	}
}

func TestLoadProfileErrorsSayFileAndLine(t *testing.T) {
	tests := []struct {
		file, text, want string
	}{
		{"dev.yaml", "name: dev\nkind: claude\nmodle: opus\n", "dev.yaml:3: unknown key \"modle\""},
		{"dev.yaml", "name: dev\nkind: robot\n", `kind "robot" is not one of claude, codex, gemini, shell, generic`},
		{"dev.yaml", "name: other\n", `name "other" differs from the file name`},
		{"Dev.yaml", "kind: shell\n", `agent name "Dev" is not valid`},
		{"dev.yaml", "name: dev\ncommand: \"claude --model 'opus\"\n", "dev.yaml:2: command: has an unclosed single quote"},
		{"dev.yaml", "name: [dev\n", "dev.yaml:1:"},
		{"dev.yaml", "name: dev\ndisplay_name: \"two\\nlines\"\n", "display_name must be one line"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			path := writeProfile(t, t.TempDir(), tt.file, tt.text)
			_, err := LoadProfile(path)
			var perr *Error
			if !errors.As(err, &perr) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("LoadProfile: %v; want an *Error containing %q", err, tt.want)
			}
		})
	}
}

func TestProfileDefaultsAndJSON(t *testing.T) {
	dir := t.TempDir()
	writeProfile(t, dir, "docs_writer.json", `{"command": "vim notes.md", "env": {"EDITOR": "vim"}}`)
	writeProfile(t, dir, "person.yaml", "")
	profiles, err := LoadProfiles(filepath.Join(dir, workspace.ProfilesDir))
	if err != nil {
		t.Fatal(err)
	}
	docs := profiles["docs_writer"]
	if docs.DisplayName != "Docs Writer" || docs.Kind != KindGeneric || !reflect.DeepEqual([]string(docs.Command), []string{"vim", "notes.md"}) {
		t.Errorf("docs_writer = %+v; want display name from the name, kind generic, command split", docs)
	}
	if person := profiles["person"]; person.Kind != KindShell || person.DisplayName != "Person" {
		t.Errorf("empty profile = %+v; want a shell named Person", person)
	}
}

func TestExpandVariables(t *testing.T) {
	p := &Profile{Name: "developer_agent", Command: Command{"claude", "--add-dir", "${workspaceRoot}/src"}, Cwd: "${HOME}/work", Env: map[string]string{"WHO": "${USER}@${agent}", "HERE": "${cwd}"}}
	got, err := p.Expand(Vars{WorkspaceRoot: "/ws", Cwd: "/here", Home: "/home/ann", User: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Command[2] != "/ws/src" || got.Cwd != "/home/ann/work" || got.Env["WHO"] != "ann@developer_agent" || got.Env["HERE"] != "/here" {
		t.Errorf("expanded = %+v", got)
	}
	if p.Cwd != "${HOME}/work" {
		t.Errorf("Expand changed the original profile")
	}
	if _, err := (&Profile{Name: "x", Cwd: "${WORKSPACE}"}).Expand(Vars{}); err == nil || !strings.Contains(err.Error(), "unknown variable ${WORKSPACE}; known: ${workspaceRoot}") {
		t.Errorf("unknown variable: %v", err)
	}
}

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"claude --model sonnet", []string{"claude", "--model", "sonnet"}},
		{`sh -c 'echo "hi there"'`, []string{"sh", "-c", `echo "hi there"`}},
		{`echo "a \"quoted\" word" back\ slash`, []string{"echo", `a "quoted" word`, "back slash"}},
		{"  spaced   out  ", []string{"spaced", "out"}},
		{`""`, []string{""}},
	}
	for _, tt := range tests {
		got, err := SplitCommand(tt.in)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{`'open`, `"open`, `trailing\`} {
		if _, err := SplitCommand(bad); err == nil {
			t.Errorf("SplitCommand(%q) succeeded; want an error", bad)
		}
	}
}

func TestTeamFillsShellsAndFallsBackWhenNotInstalled(t *testing.T) {
	dir := t.TempDir()
	writeProfile(t, dir, "developer_agent.yaml", "kind: claude\ncommand: claude\n")
	writeProfile(t, dir, "stray.yaml", "kind: shell\n")
	team, unnamed, err := Team(workspace.New(dir), []string{"developer_agent", "operator", "tester_agent"})
	if err != nil {
		t.Fatal(err)
	}
	if len(team) != 2 || team[0].Name != "developer_agent" || team[1].Name != "tester_agent" || team[1].Kind != KindShell {
		t.Errorf("team = %+v; want developer_agent and a shell for tester_agent", team)
	}
	if !reflect.DeepEqual(unnamed, []string{"stray"}) {
		t.Errorf("unnamed = %v; want [stray]", unnamed)
	}
	missing := func(string) (string, error) { return "", errors.New("not found") }
	launch := team[0].Launch(missing)
	if launch.Kind != KindShell || !strings.Contains(launch.Note, "claude is not installed") {
		t.Errorf("launch without claude = %+v; want a shell and a note", launch)
	}
	found := func(string) (string, error) { return "/usr/bin/claude", nil }
	if launch := team[0].Launch(found); launch.Kind != KindClaude || launch.Command[0] != "claude" || launch.Note != "" {
		t.Errorf("launch with claude = %+v", launch)
	}
}

// TestASpawnedAgentRunsWithWhatSpawnGave: a helper spawned with a model,
// more instructions and an environment variable runs its profile with
// them, its profile file untouched for the others.
func TestASpawnedAgentRunsWithWhatSpawnGave(t *testing.T) {
	dir := t.TempDir()
	writeProfile(t, dir, "developer_agent.yaml", "kind: claude\ncommand: claude\nmodel: claude-sonnet-4\nsystem_instructions: Write Go.\nenv: {A: one}\n")
	ws := workspace.New(dir)
	err := ws.UpdateSpawned(func(all map[string]workspace.Spawned) error {
		all["developer_agent-1"] = workspace.Spawned{Profile: "developer_agent", Parent: "developer_agent",
			Model: "claude-haiku-4", System: "Only touch tests/.", Env: map[string]string{"B": "two"}}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	team, _, err := Team(ws, []string{"developer_agent", "developer_agent-1"})
	if err != nil {
		t.Fatal(err)
	}
	lead, helper := team[0], team[1]
	if helper.Model != "claude-haiku-4" || helper.SystemInstructions != "Write Go.\n\nOnly touch tests/." || !reflect.DeepEqual(helper.Env, map[string]string{"A": "one", "B": "two"}) {
		t.Errorf("the helper runs with model %q, instructions %q, env %v", helper.Model, helper.SystemInstructions, helper.Env)
	}
	if lead.Model != "claude-sonnet-4" || len(lead.Env) != 1 || lead.SystemInstructions != "Write Go." {
		t.Errorf("the lead's profile changed: %+v", lead)
	}
}
