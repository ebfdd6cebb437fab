package hooks

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"switchboard/agents"
	"switchboard/mailbox"
)

// WiringDir is the folder of an agent's generated hook files:
// mailboxes/<agent>/hooks. Nothing outside mailboxes/ is written, so the
// user's own settings files stay untouched.
func WiringDir(store *mailbox.Store, agent string) string {
	return filepath.Join(store.AgentDir(agent), "hooks")
}

// WiringFile is the file `hooks install --write` and `up` write for a kind.
func WiringFile(store *mailbox.Store, agent, kind string) string {
	switch kind {
	case WireClaude:
		return filepath.Join(WiringDir(store, agent), "claude-settings.json")
	case WireCodex:
		return filepath.Join(WiringDir(store, agent), "codex-hooks.json")
	case WireGemini:
		return filepath.Join(WiringDir(store, agent), "gemini-settings.json")
	case WireBash:
		return filepath.Join(WiringDir(store, agent), "bashrc")
	case WireZsh:
		return filepath.Join(WiringDir(store, agent), "zsh", ".zshrc")
	}
	return ""
}

// WriteWiring writes the file of a kind for w.Agent and returns its path.
// Shell files source the user's own start-up file first, so that a pane
// keeps the user's prompt, aliases and PATH.
func WriteWiring(store *mailbox.Store, w Wiring, kind string) (string, error) {
	config, err := w.Config(kind)
	if err != nil {
		return "", err
	}
	path := WiringFile(store, w.Agent, kind)
	switch kind {
	case WireBash:
		config = append([]byte("# written by switchboard: the user's ~/.bashrc, then the hooks\n[ -f ~/.bashrc ] && . ~/.bashrc\n"), config...)
	case WireZsh:
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
		if err := writeFile(filepath.Join(filepath.Dir(path), ".zshenv"), []byte(env)); err != nil {
			return "", err
		}
		config = append([]byte(`# written by switchboard: the user's .zshrc, then the hooks
ZDOTDIR=${SWITCHBOARD_USER_ZDOTDIR:-$HOME}
[ -f "$ZDOTDIR/.zshrc" ] && . "$ZDOTDIR/.zshrc"
`), config...)
	}
	return path, writeFile(path, config)
}

func writeFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write hook wiring: %w", err)
	}
	if err := mailbox.Replace(dir, dir, filepath.Base(path), data, false); err != nil {
		return fmt.Errorf("write hook wiring: %w", err)
	}
	return nil
}

// WireLaunch wires an agent's hooks into what its pane runs, by kind:
// Claude Code gets --settings with a generated file and its profile's
// system instructions and model; Codex CLI gets -c overrides; Gemini CLI a
// system settings file through its environment; bash an --rcfile and zsh a
// ZDOTDIR, each reading the user's own file first. Other programs run as
// they are. It returns the launch to run.
func WireLaunch(store *mailbox.Store, binary string, p *agents.Profile, launch agents.Launch) (agents.Launch, error) {
	if len(launch.Command) == 0 {
		return launch, nil
	}
	w := Wiring{Binary: binary, Workspace: filepath.Dir(store.Dir), Agent: p.Name}
	program, rest := launch.Command[0], launch.Command[1:]
	var extra []string
	switch launch.Kind {
	case agents.KindClaude:
		path, err := WriteWiring(store, w, WireClaude)
		if err != nil {
			return launch, err
		}
		extra = []string{"--settings", path}
		if p.SystemInstructions != "" {
			extra = append(extra, "--append-system-prompt", p.SystemInstructions)
		}
		if p.Model != "" && !slices.Contains(rest, "--model") {
			extra = append(extra, "--model", p.Model)
		}
	case agents.KindCodex:
		extra = w.CodexOverrides()
		if p.Model != "" && !slices.Contains(rest, "--model") && !slices.Contains(rest, "-m") {
			extra = append(extra, "--model", p.Model)
		}
	case agents.KindGemini:
		path, err := WriteWiring(store, w, WireGemini)
		if err != nil {
			return launch, err
		}
		launch.Env = map[string]string{"GEMINI_CLI_SYSTEM_SETTINGS_PATH": path}
		if p.Model != "" && !slices.Contains(rest, "--model") && !slices.Contains(rest, "-m") {
			extra = append(extra, "--model", p.Model)
		}
	case agents.KindShell:
		switch filepath.Base(program) {
		case "bash":
			path, err := WriteWiring(store, w, WireBash)
			if err != nil {
				return launch, err
			}
			extra = []string{"--rcfile", path, "-i"}
		case "zsh":
			path, err := WriteWiring(store, w, WireZsh)
			if err != nil {
				return launch, err
			}
			launch.Env = map[string]string{"ZDOTDIR": filepath.Dir(path)}
			if user := os.Getenv("ZDOTDIR"); user != "" {
				launch.Env["SWITCHBOARD_USER_ZDOTDIR"] = user
			}
		}
	}
	launch.Command = append(append([]string{program}, extra...), rest...)
	return launch, nil
}
