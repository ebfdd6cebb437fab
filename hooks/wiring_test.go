package hooks

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"switchboard/agents"
	"switchboard/mailbox"
)

func TestClaudeSettingsRunEveryHookForTheAgent(t *testing.T) {
	w := Wiring{Binary: "/opt/switch board/switchboard", Workspace: "/home/ann/my team", Agent: "developer_agent"}
	var doc struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
		StatusLine struct {
			Type    string `json:"type"`
			Command string `json:"command"`
		} `json:"statusLine"`
	}
	if err := json.Unmarshal(w.ClaudeSettings(), &doc); err != nil {
		t.Fatalf("settings are not JSON: %v", err)
	}
	want := `'/opt/switch board/switchboard' --root '/home/ann/my team' --as developer_agent hook claude`
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "Notification", "SessionEnd"} {
		groups := doc.Hooks[ev]
		if len(groups) != 1 || len(groups[0].Hooks) != 1 || groups[0].Hooks[0].Command != want || groups[0].Hooks[0].Type != "command" {
			t.Errorf("%s: %+v; want one command hook running %s", ev, groups, want)
		}
	}
	if doc.Hooks["PostToolUse"][0].Matcher != "*" {
		t.Errorf("PostToolUse matcher = %q; want * so that every tool call is a checkpoint", doc.Hooks["PostToolUse"][0].Matcher)
	}
	if !strings.HasSuffix(doc.StatusLine.Command, "status --format line") {
		t.Errorf("status line runs %q", doc.StatusLine.Command)
	}
}

func TestShellQuoteSurvivesTheShell(t *testing.T) {
	for _, word := range []string{"plain", "two words", "it's", `a"b`, "$HOME", "", "semi;colon"} {
		out, err := exec.Command("sh", "-c", "printf %s "+ShellQuote(word)).Output()
		if err != nil || string(out) != word {
			t.Errorf("quoted %q came back as %q (%v)", word, out, err)
		}
	}
}

func TestWireLaunchByKind(t *testing.T) {
	root := t.TempDir()
	store := mailbox.NewStore(root)
	if err := store.Ensure("developer_agent"); err != nil {
		t.Fatal(err)
	}
	p := &agents.Profile{Name: "developer_agent", SystemInstructions: "You develop.", Model: "sonnet"}

	got, err := WireLaunch(store, "/bin/switchboard", p, agents.Launch{Kind: agents.KindClaude, Command: []string{"claude", "--verbose"}})
	if err != nil {
		t.Fatal(err)
	}
	settings := WiringFile(store, "developer_agent", WireClaude)
	want := []string{"claude", "--settings", settings, "--append-system-prompt", "You develop.", "--model", "sonnet", "--verbose"}
	if !slices.Equal(got.Command, want) {
		t.Errorf("claude launch = %q; want %q", got.Command, want)
	}
	if _, err := os.Stat(settings); err != nil {
		t.Errorf("settings file not written: %v", err)
	}

	got, err = WireLaunch(store, "/bin/switchboard", p, agents.Launch{Kind: agents.KindClaude, Command: []string{"claude", "--model", "opus"}})
	if err != nil || slices.Contains(got.Command, "sonnet") {
		t.Errorf("a --model in the command must win over the profile's: %q, %v", got.Command, err)
	}

	got, err = WireLaunch(store, "/bin/switchboard", p, agents.Launch{Kind: agents.KindShell, Command: []string{"/bin/bash"}})
	if err != nil {
		t.Fatal(err)
	}
	rc := WiringFile(store, "developer_agent", WireBash)
	if want := []string{"/bin/bash", "--rcfile", rc, "-i"}; !slices.Equal(got.Command, want) {
		t.Errorf("bash launch = %q; want %q", got.Command, want)
	}
	if _, err := exec.LookPath("bash"); err == nil {
		if out, err := exec.Command("bash", "-n", rc).CombinedOutput(); err != nil {
			t.Errorf("the bash rc file does not parse: %v\n%s", err, out)
		}
	}

	got, err = WireLaunch(store, "/bin/switchboard", p, agents.Launch{Kind: agents.KindShell, Command: []string{"zsh"}})
	if err != nil {
		t.Fatal(err)
	}
	zdot := filepath.Dir(WiringFile(store, "developer_agent", WireZsh))
	if got.Env["ZDOTDIR"] != zdot {
		t.Errorf("zsh env = %v; want ZDOTDIR=%s", got.Env, zdot)
	}
	if _, err := exec.LookPath("zsh"); err == nil {
		if out, err := exec.Command("zsh", "-n", filepath.Join(zdot, ".zshrc")).CombinedOutput(); err != nil {
			t.Errorf("the zsh rc file does not parse: %v\n%s", err, out)
		}
	}

	got, err = WireLaunch(store, "/bin/switchboard", p, agents.Launch{Kind: agents.KindCodex, Command: []string{"codex"}})
	if err != nil || len(got.Command) < 5 || got.Command[1] != "-c" || got.Command[2] != "features.codex_hooks=true" || !strings.Contains(got.Command[4], "UserPromptSubmit=") {
		t.Errorf("codex launch = %q, %v; want the hooks feature and table as -c overrides", got.Command, err)
	}

	got, err = WireLaunch(store, "/bin/switchboard", p, agents.Launch{Kind: agents.KindGeneric, Command: []string{"aider"}})
	if err != nil || !slices.Equal(got.Command, []string{"aider"}) {
		t.Errorf("a generic program must run as it is: %q, %v", got.Command, err)
	}
}

// TestBashSnippetWithAQuotedPath runs the snippet in bash for a workspace
// whose path needs quoting: PS0 must call the hook, not split the path.
func TestBashSnippetWithAQuotedPath(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	dir := filepath.Join(t.TempDir(), "my team's ws")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "switchboard")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho \"$@\" >> \"$(dirname \"$0\")/calls\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	w := Wiring{Binary: bin, Workspace: dir, Agent: "tester_agent"}
	rc := filepath.Join(dir, "rc")
	if err := os.WriteFile(rc, []byte(w.BashSnippet()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("bash", "-c", `. "$1" && __switchboard_prompt && echo "ps0=${PS0@P}"`, "bash", rc).CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	calls, _ := os.ReadFile(filepath.Join(dir, "calls"))
	want := "--root " + dir + " --as tester_agent hook prompt\n--root " + dir + " --as tester_agent hook preexec\n"
	if string(calls) != want || strings.TrimSpace(string(out)) != "ps0=" {
		t.Errorf("the hooks ran as %q (bash said %q); want %q", calls, out, want)
	}
}
