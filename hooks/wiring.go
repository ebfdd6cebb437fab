package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"switchboard/internal/safetext"
	"switchboard/profile"
)

// Kinds of wiring `hooks install` knows.
const (
	WireClaude = "claude"
	WireCodex  = "codex"
	WireGemini = "gemini"
	WireBash   = "bash"
	WireZsh    = "zsh"
)

// WireKinds lists them in the order help shows them.
var WireKinds = []string{WireClaude, WireCodex, WireGemini, WireBash, WireZsh}

// Wiring says which switchboard runs the hooks, and for whom.
type Wiring struct {
	// Binary is the switchboard executable the hooks run.
	Binary string
	// Workspace and Agent, when set, are written into every hook command;
	// when Agent is empty the hooks take both from SWITCHBOARD_ROOT and
	// SWITCHBOARD_AGENT at run time, as the panes of `switchboard up` set them.
	Workspace string
	Agent     string
	// Allowed are the switchboard subcommands the agent's client may run
	// without a prompt (AllowedCommands); nil means those of any agent.
	Allowed []string
	// Dir is the folder the agent works in, which Codex is told to trust.
	Dir string
	// ClientHome is the user's own home of the client (Codex's CODEX_HOME,
	// Gemini CLI's .gemini folder) that the agent's home is made from;
	// "" for where the client looks by default.
	ClientHome string
	// ApprovalTimeout is how long a permission prompt sent up waits (the
	// agent's profile); the permission hook may run that long.
	ApprovalTimeout time.Duration
	// MCP wires switchboard's MCP server (switchboard mcp) into the client,
	// its tools allowed without a prompt, beside the shell commands.
	MCP bool
}

// MCPServerName is the name the MCP server has in the clients' settings,
// and so the prefix of its tools there (Claude Code: mcp__switchboard__send).
const MCPServerName = "switchboard"

// MCPEnv is set in an agent's pane when its client has the MCP server, so
// that its identity card names the tools.
const MCPEnv = "SWITCHBOARD_MCP"

// mcpServer is how a client starts the MCP server: the binary, its
// arguments, and the environment that says whose it is.
func (w Wiring) mcpServer() (command string, args []string, env map[string]string) {
	args = []string{"mcp"}
	env = map[string]string{}
	if w.Agent != "" {
		args = []string{"--as", w.Agent, "mcp"}
		env["SWITCHBOARD_AGENT"] = w.Agent
	}
	if w.Workspace != "" {
		env["SWITCHBOARD_ROOT"] = w.Workspace
	}
	return w.Binary, args, env
}

// ClaudeMCPConfig is the file Claude Code takes with --mcp-config: the
// switchboard server, started over stdio.
func (w Wiring) ClaudeMCPConfig() []byte {
	command, args, env := w.mcpServer()
	return encodeIndented(map[string]any{"mcpServers": map[string]any{
		MCPServerName: map[string]any{"type": "stdio", "command": command, "args": args, "env": env},
	}})
}

// permissionTimeout is the time, in seconds, the client gives the
// permission hook: the approval timeout, and a minute to spare.
func (w Wiring) permissionTimeout() int {
	t := w.ApprovalTimeout
	if t <= 0 {
		t = profile.DefaultApprovalTimeout
	}
	return int(t.Seconds()) + 60
}

// command is the shell command line of one switchboard subcommand.
func (w Wiring) command(args ...string) string {
	words := []string{w.Binary}
	if w.Agent != "" {
		if w.Workspace != "" {
			words = append(words, "--root", w.Workspace)
		}
		words = append(words, "--as", w.Agent)
	}
	words = append(words, args...)
	quoted := make([]string, len(words))
	for i, word := range words {
		quoted[i] = safetext.ShellWord(word)
	}
	return strings.Join(quoted, " ")
}

// allowed is Allowed, or what every agent may run.
func (w Wiring) allowed() []string {
	if w.Allowed == nil {
		return agentCommands
	}
	return w.Allowed
}

// hookTimeout bounds one hook call, in seconds: far above its few
// milliseconds, far below anything a person would wait for.
const hookTimeout = 10

type hookHandler struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
	// OnFailure "block": Claude Code refuses the call when the hook fails
	// to answer (it cannot start, or times out), instead of running it.
	OnFailure string `json:"onFailure,omitempty"`
}

type hookGroup struct {
	Matcher string        `json:"matcher,omitempty"`
	Hooks   []hookHandler `json:"hooks"`
}

// hookTable runs `hook claude` on each of events, with the matcher and the
// timeout given for the event, if any, else timeout.
func (w Wiring) hookTable(events []string, matchers map[string]string, timeouts map[string]int, timeout int) map[string][]hookGroup {
	table := make(map[string][]hookGroup, len(events))
	for _, ev := range events {
		handler := hookHandler{Type: "command", Command: w.command("hook", "claude"), Timeout: timeout}
		if t, ok := timeouts[ev]; ok {
			handler.Timeout = t
		}
		if ev == "PreToolUse" {
			handler.OnFailure = "block" // the peer tool must not slip past a hook that failed
		}
		table[ev] = []hookGroup{{Matcher: matchers[ev], Hooks: []hookHandler{handler}}}
	}
	return table
}

var claudeEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "StopFailure", "Notification", "PermissionRequest", "SessionEnd"}

// peerListTool is Claude Code's tool that lists every session of the user,
// teammates included, to write to with PeerMessageTool: denied outright.
const peerListTool = "ListAgents"

// ClaudeSettings is a Claude Code settings file: every hook of section 9,
// the status line, and the permission to run the agent's switchboard
// commands without a prompt. The client's own channel between sessions is
// closed: its listing tool is denied, and its sending tool goes through
// the PreToolUse hook (PeerMessageTool). Permission prompts are the
// client's default ones, which the PermissionRequest hook sends to whoever
// answers for the agent: Claude Code 2.1.328 would start in its auto mode,
// whose judge runs on Anthropic's servers and asks the person in the pane
// whenever it cannot be reached. Load it with `claude --settings FILE`, or merge
// it into .claude/settings.json.
func (w Wiring) ClaudeSettings() []byte {
	var allow []string
	for _, cmd := range w.allowed() {
		// Claude Code matches the command line's prefix, at a word's end.
		allow = append(allow, "Bash(switchboard "+cmd+":*)")
	}
	if w.MCP {
		allow = append(allow, "mcp__"+MCPServerName) // every tool of the server
	}
	doc := map[string]any{
		"hooks": w.hookTable(claudeEvents, map[string]string{"PreToolUse": PeerMessageTool, "PostToolUse": "*", "PermissionRequest": "*"}, map[string]int{"PermissionRequest": w.permissionTimeout()}, hookTimeout),
		"statusLine": map[string]any{
			"type":    "command",
			"command": w.command("status", "--format", "line"),
			"padding": 0,
		},
		"permissions": map[string]any{"allow": allow, "deny": []string{peerListTool}, "defaultMode": "default"},
	}
	return encodeIndented(doc)
}

// binaryFirst is the line of a pane's shell start-up file, after the
// user's own, that puts the folder of the switchboard the hooks run first
// on PATH again: a user's rc that puts another install first would have
// the hints the agent is given run another build.
func (w Wiring) binaryFirst() string {
	return "PATH=" + safetext.ShellWord(filepath.Dir(w.Binary)) + ":\"$PATH\"\n"
}

// BashSnippet goes into a .bashrc: the box before each prompt (idle), and
// busy before each command. It keeps the exit status the prompt shows.
func (w Wiring) BashSnippet() string {
	return fmt.Sprintf(`# switchboard: mailbox and bulletin before each prompt; busy while a command runs
__switchboard_prompt() { local s=$?; %s; return $s; }
__switchboard_preexec() { %s >/dev/null 2>&1; }
case ";${PROMPT_COMMAND:-};" in *";__switchboard_prompt;"*) ;; *) PROMPT_COMMAND="__switchboard_prompt${PROMPT_COMMAND:+;$PROMPT_COMMAND}" ;; esac
case "${PS0:-}" in *"__switchboard_preexec"*) ;; *) PS0='$(__switchboard_preexec)'"${PS0:-}" ;; esac
`, w.command("hook", "prompt"), w.command("hook", "preexec"))
}

// ZshSnippet goes into a .zshrc: the same through precmd and preexec.
func (w Wiring) ZshSnippet() string {
	return fmt.Sprintf(`# switchboard: mailbox and bulletin before each prompt; busy while a command runs
autoload -Uz add-zsh-hook
__switchboard_precmd() { %s }
__switchboard_preexec() { %s >/dev/null 2>&1 }
add-zsh-hook precmd __switchboard_precmd
add-zsh-hook preexec __switchboard_preexec
`, w.command("hook", "prompt"), w.command("hook", "preexec"))
}

// Config is what `hooks install` prints for a kind: the settings file or
// hooks.json of a client, the lines for a shell's rc file.
func (w Wiring) Config(kind string) ([]byte, error) {
	switch kind {
	case WireClaude:
		return w.ClaudeSettings(), nil
	case WireCodex:
		return w.CodexHooks(), nil
	case WireGemini:
		return w.GeminiSettings(), nil
	case WireBash:
		return []byte(w.BashSnippet()), nil
	case WireZsh:
		return []byte(w.ZshSnippet()), nil
	}
	return nil, errNoWiring(kind)
}

func errNoWiring(kind string) error {
	return fmt.Errorf("no hook wiring for kind %q: choose one of %s", kind, strings.Join(WireKinds, ", "))
}

// Permissions is the file of a kind's client that lets the agent run its
// switchboard commands without a prompt, when the client keeps it apart
// from the hooks: Codex's rules, Gemini CLI's policy. Claude Code has its
// rules in its settings file; shells ask nobody.
func (w Wiring) Permissions(kind string) ([]byte, bool) {
	switch kind {
	case WireCodex:
		return w.CodexRules(), true
	case WireGemini:
		return w.GeminiPolicy(), true
	}
	return nil, false
}

// ValidWireKind reports whether kind has a wiring.
func ValidWireKind(kind string) bool { return slices.Contains(WireKinds, kind) }

func encodeIndented(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v) // maps of strings and numbers always encode
	return b.Bytes()
}

// MCPConfig is what gives a kind's client switchboard's MCP server, for an
// agent started by hand: Claude Code's --mcp-config file, the mcpServers
// entry of Gemini CLI's settings, the table of Codex's config.toml.
func (w Wiring) MCPConfig(kind string) ([]byte, error) {
	switch kind {
	case WireClaude:
		return w.ClaudeMCPConfig(), nil
	case WireGemini:
		return encodeIndented(map[string]any{"mcpServers": map[string]any{MCPServerName: w.geminiMCPEntry()}}), nil
	case WireCodex:
		var b strings.Builder
		fmt.Fprintf(&b, "[mcp_servers.%s]\n", MCPServerName)
		overrides := w.CodexMCPOverrides()
		for i := 1; i < len(overrides); i += 2 {
			key, value, _ := strings.Cut(strings.TrimPrefix(overrides[i], "mcp_servers."+MCPServerName+"."), "=")
			fmt.Fprintf(&b, "%s = %s\n", key, value)
		}
		return []byte(b.String()), nil
	}
	return nil, fmt.Errorf("no MCP wiring for kind %q: it is for %s, %s and %s", kind, WireClaude, WireCodex, WireGemini)
}
