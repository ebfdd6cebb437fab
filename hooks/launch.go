package hooks

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"switchboard/internal/atomicfile"
	"switchboard/internal/safetext"
	"switchboard/profile"
	"switchboard/rules"
	"switchboard/workspace"
)

// Wired is a wiring written to disk, and what it asks of the command line
// of the agent's client.
type Wired struct {
	Path  string            // the file, or the client's home folder, written
	Env   map[string]string // to set in the client's environment
	Unset []string          // to take out of the client's environment
	Args  []string          // to put right after the client's program
}

// Command is how to start the client with the wiring, as a person would
// type it.
func (wd Wired) Command(kind string) string {
	var words []string
	for k, v := range wd.Env {
		words = append(words, k+"="+safetext.ShellWord(v))
	}
	slices.Sort(words)
	words = append(wd.unsetting(), append(words, programOf[kind])...)
	for _, a := range wd.Args {
		words = append(words, safetext.ShellWord(a))
	}
	return strings.Join(words, " ")
}

// unsetting is the env(1) words that take Unset out of the environment of
// the program they precede; none when there is nothing to take out.
func (wd Wired) unsetting() []string {
	if len(wd.Unset) == 0 {
		return nil
	}
	words := []string{"env"}
	for _, name := range wd.Unset {
		words = append(words, "-u", name)
	}
	return words
}

var programOf = map[string]string{WireClaude: "claude", WireCodex: "codex", WireGemini: "gemini", WireBash: "bash", WireZsh: "zsh"}

// WriteWiring writes the wiring of a kind for w.Agent under its hooks
// folder: a settings file, an rc file, or a home folder for the client.
// Shell files source the user's own start-up file first, so that a pane
// keeps the user's prompt, aliases and PATH.
func WriteWiring(ws *workspace.Workspace, w Wiring, kind string) (Wired, error) {
	dir := ws.WiringDir(w.Agent)
	switch kind {
	case WireClaude:
		path := filepath.Join(dir, "claude-settings.json")
		wired := Wired{Path: path, Args: []string{"--settings", path}}
		if w.MCP {
			config := filepath.Join(dir, "claude-mcp.json")
			if err := writeFile(config, w.ClaudeMCPConfig()); err != nil {
				return Wired{}, err
			}
			wired.Args = append(wired.Args, "--mcp-config", config)
			wired.Env = map[string]string{MCPEnv: "1"}
		}
		return wired, writeFile(path, w.ClaudeSettings())
	case WireCodex:
		return writeCodexHome(filepath.Join(dir, "codex"), w)
	case WireGemini:
		return writeGeminiHome(filepath.Join(dir, "gemini"), w)
	case WireBash:
		path := filepath.Join(dir, "bashrc")
		rc := "# written by switchboard: the user's ~/.bashrc, then the hooks\n[ -f ~/.bashrc ] && . ~/.bashrc\n" + w.binaryFirst() + w.BashSnippet()
		return Wired{Path: path, Args: []string{"--rcfile", path, "-i"}}, writeFile(path, []byte(rc))
	case WireZsh:
		zdot := filepath.Join(dir, "zsh")
		// ZDOTDIR points here, so zsh reads this folder's start-up files
		// instead of the user's. Each runs the user's own with ZDOTDIR as the
		// user has it (their .zshenv may set it), and .zshenv points zsh back
		// here for .zshrc, which hands ZDOTDIR back to the user for good.
		env := `# written by switchboard
__sb_zdot=$ZDOTDIR
ZDOTDIR=${SWITCHBOARD_USER_ZDOTDIR:-$HOME}
[ -f "$ZDOTDIR/.zshenv" ] && . "$ZDOTDIR/.zshenv"
export SWITCHBOARD_USER_ZDOTDIR=$ZDOTDIR
ZDOTDIR=$__sb_zdot
unset __sb_zdot
`
		if err := writeFile(filepath.Join(zdot, ".zshenv"), []byte(env)); err != nil {
			return Wired{}, err
		}
		rc := `# written by switchboard: the user's .zshrc, then the hooks
ZDOTDIR=${SWITCHBOARD_USER_ZDOTDIR:-$HOME}
[ -f "$ZDOTDIR/.zshrc" ] && . "$ZDOTDIR/.zshrc"
` + w.binaryFirst() + w.ZshSnippet()
		path := filepath.Join(zdot, ".zshrc")
		wired := Wired{Path: path, Env: map[string]string{"ZDOTDIR": zdot}}
		if user := os.Getenv("ZDOTDIR"); user != "" {
			wired.Env["SWITCHBOARD_USER_ZDOTDIR"] = user
		}
		return wired, writeFile(path, []byte(rc))
	}
	return Wired{}, errNoWiring(kind)
}

func writeFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write hook wiring: %w", err)
	}
	if err := atomicfile.WriteFile(path, data, atomicfile.Options{}); err != nil {
		return fmt.Errorf("write hook wiring: %w", err)
	}
	return nil
}

// wireKind is the wiring an agent's launch takes, "" for none.
func wireKind(launch profile.Launch) string {
	switch launch.Kind {
	case profile.KindClaude:
		return WireClaude
	case profile.KindCodex:
		return WireCodex
	case profile.KindGemini:
		return WireGemini
	case profile.KindShell:
		switch filepath.Base(launch.Command[0]) {
		case "bash":
			return WireBash
		case "zsh":
			return WireZsh
		}
	}
	return ""
}

// mcpKinds are the clients switchboard's MCP server is wired into.
var mcpKinds = map[string]bool{WireClaude: true, WireCodex: true, WireGemini: true}

// HasMCP reports whether a kind's client is given switchboard's MCP
// server.
func HasMCP(kind string) bool { return mcpKinds[kind] }

// Wirer wires the agents of one workspace (agents.Wirer).
type Wirer struct {
	Workspace *workspace.Workspace
	// NoMCP leaves the MCP server out: the agents use shell commands alone.
	NoMCP bool
}

// Wire is WireLaunch for the workspace.
func (w Wirer) Wire(binary string, p *profile.Profile, launch profile.Launch) (profile.Launch, error) {
	return WireLaunch(w.Workspace, binary, p, launch, !w.NoMCP)
}

// WireLaunch wires an agent's hooks into what its pane runs, by kind (see
// WriteWiring), and adds its profile's system instructions and model where
// the client takes them. Other programs run as they are. It returns the
// launch to run.
func WireLaunch(ws *workspace.Workspace, binary string, p *profile.Profile, launch profile.Launch, withMCP bool) (profile.Launch, error) {
	if len(launch.Command) == 0 {
		return launch, nil
	}
	kind := wireKind(launch)
	if kind == "" {
		return launch, nil
	}
	w := Wiring{Binary: binary, Workspace: ws.Root, Agent: p.Name, Dir: p.Cwd, ApprovalTimeout: p.Timeout(), MCP: withMCP && mcpKinds[kind]}
	if w.Dir == "" {
		w.Dir = ws.Root
	}
	if r, err := rules.LoadTeam(ws); err == nil {
		w.Allowed = AllowedCommands(r, p.Name)
	}
	w.ClientHome = clientHomeOf(kind, p.Env)
	wired, err := WriteWiring(ws, w, kind)
	if err != nil {
		return launch, err
	}
	program, rest := launch.Command[0], launch.Command[1:]
	extra := wired.Args
	hasModel := slices.Contains(rest, "--model") || (kind != WireClaude && slices.Contains(rest, "-m"))
	switch kind {
	case WireClaude:
		if p.SystemInstructions != "" {
			extra = append(extra, "--append-system-prompt", p.SystemInstructions)
		}
		fallthrough
	case WireGemini:
		if launch.Resume != "" {
			extra = append(extra, "--resume", launch.Resume)
		}
		fallthrough
	case WireCodex:
		if p.Model != "" && !hasModel {
			extra = append(extra, "--model", p.Model)
		}
	}
	if len(wired.Env) > 0 {
		env := make(map[string]string, len(launch.Env)+len(wired.Env))
		for k, v := range launch.Env {
			env[k] = v
		}
		for k, v := range wired.Env {
			env[k] = v
		}
		launch.Env = env
	}
	if kind == WireCodex && launch.Resume != "" {
		// Codex goes on with a conversation through its resume command,
		// which takes the same options and a prompt after the session's
		// id: the profile's own words (a prompt among them) come after it.
		extra = append(extra, "resume", launch.Resume)
	}
	launch.Command = append(append(append(wired.unsetting(), program), extra...), rest...)
	if kind == WireCodex && within(ws.Root, w.Dir) {
		launch.Note = fmt.Sprintf("%s runs Codex in the workspace, which Codex's sandbox lets it write without a prompt: the team's rules, profiles and wiring too. Give it a cwd outside the workspace to keep them out of its reach.", p.Name)
	}
	return launch, nil
}

// within reports whether dir is folder or lies under it.
func within(folder, dir string) bool {
	rel, err := filepath.Rel(folder, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// clientHomeOf is the user's settings folder of the client that a
// profile's environment names: Codex's CODEX_HOME, else its HOME's .codex;
// Gemini CLI's GEMINI_CLI_HOME, else its HOME, holding .gemini. Empty when
// the profile names neither, and the caller's are used.
func clientHomeOf(kind string, env map[string]string) string {
	switch kind {
	case WireCodex:
		if home := env["CODEX_HOME"]; home != "" {
			return home
		}
		if home := env["HOME"]; home != "" {
			return filepath.Join(home, ".codex")
		}
	case WireGemini:
		for _, home := range []string{env["GEMINI_CLI_HOME"], env["HOME"]} {
			if home != "" {
				return filepath.Join(home, ".gemini")
			}
		}
	}
	return ""
}
