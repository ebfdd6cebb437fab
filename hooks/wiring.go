package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
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
		quoted[i] = ShellQuote(word)
	}
	return strings.Join(quoted, " ")
}

// ShellQuote quotes a word for sh, leaving plain words as they are.
func ShellQuote(word string) string {
	if word != "" && strings.Trim(word, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") == "" {
		return word
	}
	return "'" + strings.ReplaceAll(word, "'", `'\''`) + "'"
}

// hookTimeout bounds one hook call, in seconds: far above its few
// milliseconds, far below anything a person would wait for.
const hookTimeout = 10

type hookHandler struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

type hookGroup struct {
	Matcher string        `json:"matcher,omitempty"`
	Hooks   []hookHandler `json:"hooks"`
}

// hookTable runs `hook claude` on each of events, with the matcher given
// for the event, if any.
func (w Wiring) hookTable(events []string, matchers map[string]string, timeout int) map[string][]hookGroup {
	table := make(map[string][]hookGroup, len(events))
	handler := hookHandler{Type: "command", Command: w.command("hook", "claude"), Timeout: timeout}
	for _, ev := range events {
		table[ev] = []hookGroup{{Matcher: matchers[ev], Hooks: []hookHandler{handler}}}
	}
	return table
}

var claudeEvents = []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "Notification", "SessionEnd"}

// ClaudeSettings is a Claude Code settings file: every hook of section 9
// and the status line. Load it with `claude --settings FILE`, or merge it
// into .claude/settings.json.
func (w Wiring) ClaudeSettings() []byte {
	doc := map[string]any{
		"hooks": w.hookTable(claudeEvents, map[string]string{"PostToolUse": "*"}, hookTimeout),
		"statusLine": map[string]any{
			"type":    "command",
			"command": w.command("status", "--format", "line"),
			"padding": 0,
		},
	}
	return encodeIndented(doc)
}

var codexEvents = []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"}

// CodexHooks is a Codex CLI hooks.json (~/.codex/hooks.json or
// <repo>/.codex/hooks.json); Codex shares Claude Code's events and answers.
func (w Wiring) CodexHooks() []byte {
	return encodeIndented(map[string]any{"hooks": w.hookTable(codexEvents, nil, hookTimeout)})
}

// CodexOverrides are `codex -c` options that enable the same hooks for one
// process without a file: the feature flag and the hooks table inline.
func (w Wiring) CodexOverrides() []string {
	var groups []string
	for _, ev := range codexEvents {
		groups = append(groups, fmt.Sprintf("%s=[{hooks=[{type=%q,command=%s,timeout=%d}]}]",
			ev, "command", tomlString(w.command("hook", "claude")), hookTimeout))
	}
	return []string{"-c", "features.codex_hooks=true", "-c", "hooks={" + strings.Join(groups, ",") + "}"}
}

// tomlString is a TOML basic string; JSON's escapes are a subset of TOML's.
func tomlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

var geminiHookEvents = []string{"SessionStart", "BeforeAgent", "AfterTool", "AfterAgent", "SessionEnd"}

// GeminiSettings is a Gemini CLI settings file (.gemini/settings.json);
// Gemini counts hook timeouts in milliseconds.
func (w Wiring) GeminiSettings() []byte {
	return encodeIndented(map[string]any{"hooks": w.hookTable(geminiHookEvents, map[string]string{"AfterTool": "*"}, hookTimeout*1000)})
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

// Config is what `hooks install` prints for a kind.
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
	return nil, fmt.Errorf("no hook wiring for kind %q: choose one of %s", kind, strings.Join(WireKinds, ", "))
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
