package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Gemini CLI skips a system settings file unless root owns it and every
// folder above it, and loads a workspace's .gemini/settings.json only in a
// trusted folder; so an agent gets a home of its own (GEMINI_CLI_HOME), made
// from the user's: the user's files are linked, their settings copied with
// switchboard's hooks added. The permission to run switchboard commands is
// a policy file given with --policy.

var geminiHookEvents = []string{"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "Notification", "SessionEnd"}

// geminiHeadlessVars make Gemini CLI run headless, as in a CI job, when
// either is "true": it answers what it reads and ends, where an agent's
// pane needs it to wait for the next prompt. A team started from a CI job
// (or a shell that says it is one) would lose its Gemini agents after a
// turn, so they are taken out of the client's environment.
var geminiHeadlessVars = []string{"CI", "GITHUB_ACTIONS"}

// geminiHooks is the "hooks" object of a Gemini CLI settings file; Gemini
// counts hook timeouts in milliseconds.
func (w Wiring) geminiHooks() map[string][]hookGroup {
	return w.hookTable(geminiHookEvents, map[string]string{"AfterTool": "*", "BeforeTool": "*"}, nil, hookTimeout*1000)
}

// GeminiSettings is a Gemini CLI settings file (.gemini/settings.json) with
// switchboard's hooks.
func (w Wiring) GeminiSettings() []byte {
	return encodeIndented(map[string]any{"hooks": w.geminiHooks()})
}

// GeminiPolicy is a Gemini CLI policy file that lets the agent run its
// switchboard commands without a prompt. Gemini matches each prefix at a
// word's end, and refuses compound commands (&&, ;, |) and redirections to
// it.
func (w Wiring) GeminiPolicy() []byte {
	prefixes := make([]string, len(w.allowed()))
	for i, cmd := range w.allowed() {
		prefixes[i] = fmt.Sprintf("%q", "switchboard "+cmd)
	}
	return fmt.Appendf(nil, `# written by switchboard: the agent's switchboard commands run without a prompt
[[rule]]
toolName = "run_shell_command"
commandPrefix = [%s]
decision = "allow"
priority = 100
`, strings.Join(prefixes, ", "))
}

// userGeminiDir is the user's own .gemini folder: the profile's, or the one
// under the caller's GEMINI_CLI_HOME unless that is an agent's home made
// here (a spawn run from a Gemini CLI agent's pane inherits it), else
// ~/.gemini.
func userGeminiDir(w Wiring) string {
	if w.ClientHome != "" {
		return w.ClientHome
	}
	if dir := os.Getenv(userGeminiDirVar); dir != "" {
		return dir
	}
	if home := os.Getenv("GEMINI_CLI_HOME"); home != "" && !isAgentHome(home) {
		return filepath.Join(home, ".gemini")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".gemini")
}

// userGeminiDirVar carries the user's .gemini folder into an agent's pane,
// whose GEMINI_CLI_HOME is the agent's own.
const userGeminiDirVar = "SWITCHBOARD_USER_GEMINI_DIR"

// writeGeminiHome makes dir the Gemini CLI home of the agent (dir/.gemini):
// the entries of the user's .gemini folder linked (login, memory,
// extensions), their policies copied (approvals saved in an agent's pane
// stay with it), their settings.json copied with switchboard's hooks added,
// and the policy file beside it. The agent's folder is trusted for its
// session (--skip-trust): Gemini CLI runs hooks only in a trusted folder.
func writeGeminiHome(dir string, w Wiring) (Wired, error) {
	user := userGeminiDir(w)
	gemini := filepath.Join(dir, ".gemini")
	if err := os.MkdirAll(filepath.Join(gemini, "policies"), 0o700); err != nil {
		return Wired{}, fmt.Errorf("write the Gemini CLI home: %w", err)
	}
	if err := markAgentHome(dir); err != nil {
		return Wired{}, err
	}
	if err := linkEntries(user, gemini, func(name string) bool { return name != "settings.json" && name != "policies" }); err != nil {
		return Wired{}, err
	}
	if err := copyEntries(filepath.Join(user, "policies"), filepath.Join(gemini, "policies"), func(string) bool { return true }); err != nil {
		return Wired{}, err
	}
	settings, err := mergeGeminiSettings(filepath.Join(user, "settings.json"), w.geminiHooks(), w.geminiMCPServer())
	if err != nil {
		return Wired{}, err
	}
	if err := writeFile(filepath.Join(gemini, "settings.json"), settings); err != nil {
		return Wired{}, err
	}
	policy := filepath.Join(dir, "switchboard-policy.toml")
	if err := writeFile(policy, w.GeminiPolicy()); err != nil {
		return Wired{}, err
	}
	env := map[string]string{"GEMINI_CLI_HOME": dir, userGeminiDirVar: user}
	if w.MCP {
		env[MCPEnv] = "1"
	}
	return Wired{Path: dir, Env: env, Unset: geminiHeadlessVars, Args: []string{"--skip-trust", "--policy", policy}}, nil
}

// geminiMCPServer is the entry of switchboard's MCP server in Gemini CLI's
// mcpServers, trusted so that its tools run without a prompt; nil without
// MCP.
func (w Wiring) geminiMCPServer() map[string]any {
	if !w.MCP {
		return nil
	}
	return w.geminiMCPEntry()
}

// geminiMCPEntry is the server's entry in Gemini CLI's mcpServers.
func (w Wiring) geminiMCPEntry() map[string]any {
	command, args, env := w.mcpServer()
	return map[string]any{"command": command, "args": args, "env": env, "trust": true}
}

// mergeGeminiSettings is the user's settings file with the hooks added after
// the user's own, event by event, and switchboard's MCP server (when mcp is
// not nil) beside the user's servers.
func mergeGeminiSettings(path string, hooks map[string][]hookGroup, mcp map[string]any) ([]byte, error) {
	settings := map[string]any{}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("read your Gemini CLI settings: %w", err)
	default:
		dec := json.NewDecoder(bytes.NewReader(stripJSONComments(data)))
		dec.UseNumber() // numbers come back as written
		if err := dec.Decode(&settings); err != nil {
			return nil, fmt.Errorf("read your Gemini CLI settings %s: %w", path, err)
		}
	}
	table, _ := settings["hooks"].(map[string]any)
	if table == nil {
		table = map[string]any{}
	}
	for ev, groups := range hooks {
		list, _ := table[ev].([]any)
		for _, g := range groups {
			list = append(list, g)
		}
		table[ev] = list
	}
	settings["hooks"] = table
	if mcp != nil {
		servers, _ := settings["mcpServers"].(map[string]any)
		if servers == nil {
			servers = map[string]any{}
		}
		servers[MCPServerName] = mcp
		settings["mcpServers"] = servers
	}
	return encodeIndented(settings), nil
}

// stripJSONComments blanks the // and /* */ comments Gemini CLI allows in
// its settings, leaving strings alone.
func stripJSONComments(data []byte) []byte {
	out := make([]byte, 0, len(data))
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			c = '\n'
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := strings.Index(string(data[i+2:]), "*/")
			if end < 0 {
				return out
			}
			i += end + 3
			c = ' '
		}
		out = append(out, c)
	}
	return out
}
