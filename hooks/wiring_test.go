package hooks

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"switchboard/profile"
	"switchboard/rules"
	"switchboard/workspace"
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

func TestWireLaunchByKind(t *testing.T) {
	ws := workspace.New(t.TempDir())
	if err := ws.Store.Ensure("developer_agent"); err != nil {
		t.Fatal(err)
	}
	p := &profile.Profile{Name: "developer_agent", SystemInstructions: "You develop.", Model: "sonnet"}

	got, err := WireLaunch(ws, "/bin/switchboard", p, profile.Launch{Kind: profile.KindClaude, Command: []string{"claude", "--verbose"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	wiring := ws.WiringDir("developer_agent")
	settings := filepath.Join(wiring, "claude-settings.json")
	want := []string{"claude", "--settings", settings, "--append-system-prompt", "You develop.", "--model", "sonnet", "--verbose"}
	if !slices.Equal(got.Command, want) {
		t.Errorf("claude launch = %q; want %q", got.Command, want)
	}
	if _, err := os.Stat(settings); err != nil {
		t.Errorf("settings file not written: %v", err)
	}

	got, err = WireLaunch(ws, "/bin/switchboard", p, profile.Launch{Kind: profile.KindClaude, Command: []string{"claude", "--model", "opus"}}, false)
	if err != nil || slices.Contains(got.Command, "sonnet") {
		t.Errorf("a --model in the command must win over the profile's: %q, %v", got.Command, err)
	}

	got, err = WireLaunch(ws, "/bin/switchboard", p, profile.Launch{Kind: profile.KindShell, Command: []string{"/bin/bash"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	rc := filepath.Join(wiring, "bashrc")
	if want := []string{"/bin/bash", "--rcfile", rc, "-i"}; !slices.Equal(got.Command, want) {
		t.Errorf("bash launch = %q; want %q", got.Command, want)
	}
	if _, err := exec.LookPath("bash"); err == nil {
		if out, err := exec.Command("bash", "-n", rc).CombinedOutput(); err != nil {
			t.Errorf("the bash rc file does not parse: %v\n%s", err, out)
		}
	}

	got, err = WireLaunch(ws, "/bin/switchboard", p, profile.Launch{Kind: profile.KindShell, Command: []string{"zsh"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	zdot := filepath.Join(wiring, "zsh")
	if got.Env["ZDOTDIR"] != zdot {
		t.Errorf("zsh env = %v; want ZDOTDIR=%s", got.Env, zdot)
	}
	if _, err := exec.LookPath("zsh"); err == nil {
		if out, err := exec.Command("zsh", "-n", filepath.Join(zdot, ".zshrc")).CombinedOutput(); err != nil {
			t.Errorf("the zsh rc file does not parse: %v\n%s", err, out)
		}
	}

	t.Setenv("HOME", t.TempDir())
	t.Setenv("CODEX_HOME", "")
	t.Setenv("GEMINI_CLI_HOME", "")
	got, err = WireLaunch(ws, "/bin/switchboard", p, profile.Launch{Kind: profile.KindCodex, Command: []string{"codex", "resume"}}, false)
	codexHome := filepath.Join(wiring, "codex")
	if want := []string{"codex", "--no-daemon", "-c", "allow_login_shell=false", "--model", "sonnet", "resume"}; err != nil || !slices.Equal(got.Command, want) || got.Env["CODEX_HOME"] != codexHome {
		t.Errorf("codex launch = %q %v, %v; want %q with CODEX_HOME=%s", got.Command, got.Env, err, want, codexHome)
	}
	if !strings.Contains(got.Note, "Give it a cwd outside the workspace") {
		t.Errorf("a Codex agent working in the workspace is not warned: note %q", got.Note)
	}
	// A conversation gone on with: the profile's prompt comes after the id.
	const id = "11111111-2222-4333-8444-555555555555"
	got, _ = WireLaunch(ws, "/bin/switchboard", p, profile.Launch{Kind: profile.KindCodex, Command: []string{"codex", "Start on the login page"}, Resume: id}, false)
	if want := []string{"codex", "--no-daemon", "-c", "allow_login_shell=false", "--model", "sonnet", "resume", id, "Start on the login page"}; !slices.Equal(got.Command, want) {
		t.Errorf("codex launch resuming = %q; want %q", got.Command, want)
	}
	outside := *p
	outside.Cwd = t.TempDir()
	if got, err := WireLaunch(ws, "/bin/switchboard", &outside, profile.Launch{Kind: profile.KindCodex, Command: []string{"codex"}}, false); err != nil || got.Note != "" {
		t.Errorf("a Codex agent working outside the workspace: note %q, %v; want none", got.Note, err)
	}

	got, err = WireLaunch(ws, "/bin/switchboard", p, profile.Launch{Kind: profile.KindGemini, Command: []string{"gemini", "-m", "gemini-2.5-pro"}}, false)
	geminiHome := filepath.Join(wiring, "gemini")
	policy := filepath.Join(geminiHome, "switchboard-policy.toml")
	// CI=true would make Gemini CLI answer one prompt and end: the pane runs it without.
	if want := []string{"env", "-u", "CI", "-u", "GITHUB_ACTIONS", "gemini", "--skip-trust", "--policy", policy, "-m", "gemini-2.5-pro"}; err != nil || !slices.Equal(got.Command, want) || got.Env["GEMINI_CLI_HOME"] != geminiHome {
		t.Errorf("gemini launch = %q %v, %v; want %q with GEMINI_CLI_HOME=%s", got.Command, got.Env, err, want, geminiHome)
	}

	got, err = WireLaunch(ws, "/bin/switchboard", p, profile.Launch{Kind: profile.KindGeneric, Command: []string{"aider"}}, false)
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

func TestClaudeSettingsAllowTheAgentsSwitchboardCommands(t *testing.T) {
	w := Wiring{Binary: "switchboard", Allowed: []string{"send", "reply", "log"}}
	var doc struct {
		Permissions struct {
			Allow []string `json:"allow"`
		} `json:"permissions"`
	}
	if err := json.Unmarshal(w.ClaudeSettings(), &doc); err != nil {
		t.Fatal(err)
	}
	want := []string{"Bash(switchboard send:*)", "Bash(switchboard reply:*)", "Bash(switchboard log:*)"}
	if !slices.Equal(doc.Permissions.Allow, want) {
		t.Errorf("permissions.allow = %q; want %q", doc.Permissions.Allow, want)
	}
}

func TestAllowedCommandsFollowTheRules(t *testing.T) {
	root := t.TempDir()
	if _, err := profile.WriteDefaultTeam(root, false); err != nil {
		t.Fatal(err)
	}
	r, err := rules.LoadTeam(workspace.New(root))
	if err != nil {
		t.Fatal(err)
	}
	dev, master := AllowedCommands(r, "developer_agent"), AllowedCommands(r, "master_agent")
	for _, cmd := range []string{"send", "reply", "read", "inbox", "ask", "wait", "status", "lock", "unlock", "state", "bulletin", "spawn", "close", "interrupt", "cancel", "profiles"} {
		if !slices.Contains(dev, cmd) {
			t.Errorf("developer_agent may not run switchboard %s without a prompt", cmd)
		}
	}
	for _, cmd := range []string{"log", "show"} {
		if slices.Contains(dev, cmd) || !slices.Contains(master, cmd) {
			t.Errorf("switchboard %s: developer_agent %v, master_agent %v; want the overseer alone", cmd, slices.Contains(dev, cmd), slices.Contains(master, cmd))
		}
	}
	for _, cmd := range []string{"down", "up", "master", "hooks", "init"} {
		if slices.Contains(master, cmd) {
			t.Errorf("switchboard %s is allowed without a prompt; only talking and coordinating is", cmd)
		}
	}
}

// TestCodexTrustHashIsCodexs pins the hash against one that Codex CLI 0.169
// accepted (its hooks ran without review) for the same hook.
func TestCodexTrustHashIsCodexs(t *testing.T) {
	w := Wiring{Binary: "/tmp/sbbin/switchboard", Workspace: "/tmp/ws", Agent: "developer_agent"}
	want := `[hooks.state."/tmp/cx/home/hooks.json:session_start:0:0"]
trusted_hash = "sha256:6d67abac7be1b24066f80a770348302babb81a885bd7c5a707db3930a31f1898"
`
	if got := w.codexTrust("/tmp/cx/home/hooks.json"); !strings.Contains(got, want) {
		t.Errorf("trust tables:\n%s\nwant them to hold\n%s", got, want)
	}
}

func TestCodexHomeIsMadeFromTheUsersAndLeavesItAlone(t *testing.T) {
	user := filepath.Join(t.TempDir(), "codex")
	writeFiles(t, user, map[string]string{
		"config.toml":      "model = \"gpt-5\"\n[model_providers.corp]\nname = \"corp\"\n",
		"auth.json":        `{"OPENAI_API_KEY":"sk-user"}`,
		"hooks.json":       `{"hooks":{}}`,
		"rules/mine.rules": `prefix_rule(pattern=["git", "status"], decision="allow")`,
	})
	writeFiles(t, user, map[string]string{"skills/x.md": "x"})
	before := snapshot(t, user)
	dir := filepath.Join(t.TempDir(), "agent-home")
	w := Wiring{Binary: "/bin/switchboard", Workspace: "/w", Agent: "developer_agent", Dir: "/w/src", ClientHome: user}
	for i := range 2 { // up after up
		wired, err := writeCodexHome(dir, w)
		if err != nil {
			t.Fatal(err)
		}
		if wired.Env["CODEX_HOME"] != dir || wired.Env[userCodexHomeVar] != user {
			t.Errorf("env = %v; want CODEX_HOME=%s and the user's home beside it", wired.Env, dir)
		}
		if i == 0 {
			// Between two starts: Codex replaced the link to the login by
			// a file of its own, and the user removed a folder.
			os.Remove(filepath.Join(dir, "auth.json"))
			writeFiles(t, dir, map[string]string{"auth.json": "stale"})
			os.RemoveAll(filepath.Join(user, "skills"))
			before = snapshot(t, user)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "skills")); err == nil {
		t.Error("the link to a folder the user removed is still there")
	}
	config, _ := os.ReadFile(filepath.Join(dir, "config.toml"))
	for _, part := range []string{"model = \"gpt-5\"\n[model_providers.corp]", `[hooks.state."` + dir + `/hooks.json:user_prompt_submit:0:0"]`, "[projects.\"/w/src\"]\ntrust_level = \"trusted\"\n"} {
		if !strings.Contains(string(config), part) {
			t.Errorf("config.toml lacks %q:\n%s", part, config)
		}
	}
	if strings.Count(string(config), "[projects.") != 1 {
		t.Errorf("config.toml trusts the folder more than once:\n%s", config)
	}
	if target, err := os.Readlink(filepath.Join(dir, "auth.json")); err != nil || target != filepath.Join(user, "auth.json") {
		t.Errorf("auth.json: link to %q, %v; want a link to the user's", target, err)
	}
	// Rules are copied: an "always allow" given in the agent's pane is
	// written to the agent's copy, not to the user's file.
	if info, err := os.Lstat(filepath.Join(dir, "rules", "mine.rules")); err != nil || !info.Mode().IsRegular() {
		t.Errorf("rules/mine.rules: %v, %v; want a copy of the user's", info, err)
	}
	rules, _ := os.ReadFile(filepath.Join(dir, "rules", "switchboard.rules"))
	for _, part := range []string{`host_executable(name="switchboard", paths=["/bin/switchboard"])`, `prefix_rule(pattern=["switchboard", ["send", `} {
		if !strings.Contains(string(rules), part) {
			t.Errorf("switchboard.rules lacks %q:\n%s", part, rules)
		}
	}
	// A spawn run from the agent's pane inherits its CODEX_HOME: the new
	// agent's home is made from the user's, not from this one.
	t.Setenv("CODEX_HOME", dir)
	t.Setenv(userCodexHomeVar, "")
	t.Setenv("HOME", t.TempDir())
	if got := userCodexHome(Wiring{}); got == dir {
		t.Errorf("an agent's home was taken for the user's")
	}
	t.Setenv(userCodexHomeVar, user)
	if got := userCodexHome(Wiring{}); got != user {
		t.Errorf("user's Codex home = %q; want %q, carried in the pane's environment", got, user)
	}
	if hooks, _ := os.ReadFile(filepath.Join(dir, "hooks.json")); !strings.Contains(string(hooks), "UserPromptSubmit") {
		t.Errorf("hooks.json is not switchboard's: %s", hooks)
	}
	if after := snapshot(t, user); !maps.Equal(before, after) {
		t.Errorf("the user's Codex home changed:\nbefore %v\nafter  %v", before, after)
	}
}

func TestGeminiHomeKeepsTheUsersSettingsAndHooks(t *testing.T) {
	user := filepath.Join(t.TempDir(), ".gemini")
	writeFiles(t, user, map[string]string{
		"settings.json": `{
  // the user's own
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "hooks": {"BeforeAgent": [{"hooks": [{"type": "command", "command": "echo 'mine // not a comment'"}]}]}, /* theirs */
  "ui": {"theme": "GitHub"},
  "context": {"fileLimit": 9007199254740993}
}`,
		"oauth_creds.json":         `{}`,
		"policies/auto-saved.toml": "[[rule]]\n",
	})
	before := snapshot(t, user)
	dir := filepath.Join(t.TempDir(), "agent-home")
	w := Wiring{Binary: "/bin/switchboard", Workspace: "/w", Agent: "developer_agent", ClientHome: user}
	wired, err := writeGeminiHome(dir, w)
	if err != nil {
		t.Fatal(err)
	}
	var settings struct {
		Security map[string]any `json:"security"`
		UI       map[string]any `json:"ui"`
		Hooks    map[string][]struct {
			Hooks []struct{ Command string } `json:"hooks"`
		} `json:"hooks"`
	}
	data, _ := os.ReadFile(filepath.Join(dir, ".gemini", "settings.json"))
	if err := json.Unmarshal(data, &settings); err != nil {
		t.Fatalf("settings: %v\n%s", err, data)
	}
	before0 := settings.Hooks["BeforeAgent"]
	if len(before0) != 2 || before0[0].Hooks[0].Command != "echo 'mine // not a comment'" || !strings.HasSuffix(before0[1].Hooks[0].Command, "hook claude") {
		t.Errorf("BeforeAgent hooks = %+v; want the user's, then switchboard's", before0)
	}
	if settings.Security == nil || settings.UI["theme"] != "GitHub" || len(settings.Hooks["AfterAgent"]) != 1 {
		t.Errorf("settings lost the user's keys or switchboard's hooks:\n%s", data)
	}
	if target, err := os.Readlink(filepath.Join(dir, ".gemini", "oauth_creds.json")); err != nil || target != filepath.Join(user, "oauth_creds.json") {
		t.Errorf("oauth_creds.json: link to %q, %v; want a link to the user's", target, err)
	}
	if !strings.Contains(string(data), "9007199254740993") {
		t.Errorf("a large number in the user's settings came out changed:\n%s", data)
	}
	if info, err := os.Lstat(filepath.Join(dir, ".gemini", "policies", "auto-saved.toml")); err != nil || !info.Mode().IsRegular() {
		t.Errorf("the user's saved approvals: %v, %v; want a copy", info, err)
	}
	if wired.Env["GEMINI_CLI_HOME"] != dir || !slices.Contains(wired.Args, "--skip-trust") {
		t.Errorf("wired = %+v", wired)
	}
	if after := snapshot(t, user); !maps.Equal(before, after) {
		t.Errorf("the user's Gemini CLI folder changed")
	}
}

func TestCodexConfigStaysValidTOML(t *testing.T) {
	w := Wiring{Binary: "/bin/switchboard", Agent: "developer_agent", Dir: "/w"}
	for _, tt := range []struct {
		name, user     string
		trust, project bool
	}{
		{"empty", "", true, true},
		{"the folder trusted already", "[projects.'/w']\ntrust_level = \"trusted\"\n", true, false},
		{"inline hooks", "hooks = {}\nmodel = \"o3\"\n", false, true},
		{"inline projects", "projects = { \"/x\" = { trust_level = \"trusted\" } }\n", true, false},
		{"hooks in a profile", "[profiles.fast]\nhooks = 1\n", true, true},
	} {
		config := string(w.codexConfig([]byte(tt.user), "/h/hooks.json"))
		if got := strings.Contains(config, "[hooks.state."); got != tt.trust {
			t.Errorf("%s: hook trust added %v; want %v\n%s", tt.name, got, tt.trust, config)
		}
		if got := strings.Contains(config, `[projects."/w"]`); got != tt.project {
			t.Errorf("%s: project trust added %v; want %v\n%s", tt.name, got, tt.project, config)
		}
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshot is every file under dir with its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(path)
			files[path] = string(data)
		}
		return nil
	})
	return files
}

// TestClaudeGetsTheMCPServer: with MCP, Claude Code starts with the server
// in --mcp-config, its tools allowed, and the pane told so for the card.
func TestClaudeGetsTheMCPServer(t *testing.T) {
	ws := workspace.New(t.TempDir())
	if err := ws.Store.Ensure("developer_agent"); err != nil {
		t.Fatal(err)
	}
	p := &profile.Profile{Name: "developer_agent"}
	got, err := WireLaunch(ws, "/bin/switchboard", p, profile.Launch{Kind: profile.KindClaude, Command: []string{"claude"}}, true)
	if err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(ws.WiringDir("developer_agent"), "claude-mcp.json")
	if !slices.Contains(got.Command, "--mcp-config") || !slices.Contains(got.Command, config) || got.Env[MCPEnv] != "1" {
		t.Errorf("launch %q, env %v; want --mcp-config %s and %s=1", got.Command, got.Env, config, MCPEnv)
	}
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
			Env     map[string]string
		}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	s := doc.MCPServers["switchboard"]
	if s.Command != "/bin/switchboard" || !slices.Equal(s.Args, []string{"--as", "developer_agent", "mcp"}) || s.Env["SWITCHBOARD_ROOT"] != ws.Root {
		t.Errorf("the server in %s: %+v", config, s)
	}
	settings, _ := os.ReadFile(filepath.Join(ws.WiringDir("developer_agent"), "claude-settings.json"))
	if !strings.Contains(string(settings), `"mcp__switchboard"`) {
		t.Errorf("the settings do not allow the server's tools:\n%s", settings)
	}
}
