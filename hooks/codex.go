package hooks

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Codex CLI reads its hooks, its rules and the trust it gives them from its
// home folder (CODEX_HOME), so an agent gets a home of its own, made from
// the user's: the user's files are linked, never changed.

var codexEvents = []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "PermissionRequest", "Interrupt", "SessionEnd"}

// Codex clamps the timeout of these hooks to 3 seconds, and computes their
// trust with the clamped value.
var codexShortHooks = map[string]int{"Interrupt": 3, "SessionEnd": 3}

func (w Wiring) codexTable() map[string][]hookGroup {
	timeouts := maps.Clone(codexShortHooks)
	timeouts["PermissionRequest"] = w.permissionTimeout()
	return w.hookTable(codexEvents, nil, timeouts, hookTimeout)
}

// CodexHooks is a Codex CLI hooks.json; Codex shares Claude Code's events and
// answers, and adds PermissionRequest and Interrupt.
func (w Wiring) CodexHooks() []byte {
	return encodeIndented(map[string]any{"hooks": w.codexTable()})
}

// CodexRules is a Codex rules file that lets the agent run its switchboard
// commands without a prompt, and outside Codex's sandbox, which would refuse
// their writes to the mailboxes. Codex matches every word of the prefix, and
// each part of a compound command (&&, |) must match a rule of its own. It
// also matches a program named switchboard given by its path, unless the
// rules name the paths that count: the binary the hooks run, alone.
func (w Wiring) CodexRules() []byte {
	words := make([]string, len(w.allowed()))
	for i, cmd := range w.allowed() {
		words[i] = fmt.Sprintf("%q", cmd)
	}
	rules := []byte("# written by switchboard: the agent's switchboard commands run without a prompt\n")
	if filepath.IsAbs(w.Binary) {
		rules = fmt.Appendf(rules, "host_executable(name=\"switchboard\", paths=[%q])\n", w.Binary)
	}
	return fmt.Appendf(rules, "prefix_rule(pattern=[\"switchboard\", [%s]], decision=\"allow\")\n", strings.Join(words, ", "))
}

// codexTrust is the part of config.toml that trusts the hooks of the
// hooks.json at path, as the "review hooks" dialog would: one table per hook,
// holding the hash of the hook as Codex computes it (sha256 of its compact
// JSON with sorted keys). Without it the TUI opens on that dialog and
// `codex exec` skips the hooks.
func (w Wiring) codexTrust(path string) string {
	var b strings.Builder
	table := w.codexTable()
	events := make([]string, 0, len(table))
	for ev := range table {
		events = append(events, ev)
	}
	sort.Strings(events)
	for _, ev := range events {
		for gi, group := range table[ev] {
			for hi, h := range group.Hooks {
				entry := map[string]any{
					"event_name": snakeCase(ev),
					"hooks":      []any{map[string]any{"async": false, "command": h.Command, "timeout": h.Timeout, "type": h.Type}},
				}
				if group.Matcher != "" {
					entry["matcher"] = group.Matcher
				}
				var js bytes.Buffer
				enc := json.NewEncoder(&js)
				enc.SetEscapeHTML(false)
				_ = enc.Encode(entry) // strings and numbers always encode
				sum := sha256.Sum256(bytes.TrimSpace(js.Bytes()))
				fmt.Fprintf(&b, "[hooks.state.%s]\ntrusted_hash = \"sha256:%s\"\n",
					tomlString(fmt.Sprintf("%s:%s:%d:%d", path, snakeCase(ev), gi, hi)), hex.EncodeToString(sum[:]))
			}
		}
	}
	return b.String()
}

// snakeCase turns an event name into Codex's key: UserPromptSubmit is
// user_prompt_submit.
func snakeCase(name string) string {
	var b strings.Builder
	for i, r := range name {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// tomlString is a TOML basic string; JSON's escapes are a subset of TOML's.
func tomlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// codexArgs go after `codex` in a pane: no shared background server (it
// would run the hooks with its own environment, not the agent's), and
// commands in a plain shell (a login shell resets PATH and loses the
// switchboard of the pane).
var codexArgs = []string{"--no-daemon", "-c", "allow_login_shell=false"}

// userCodexHome is where the user's own Codex home is: the profile's or the
// caller's CODEX_HOME, unless that is an agent's home made here (a spawn run
// from a Codex agent's pane inherits it), else ~/.codex.
func userCodexHome(w Wiring) string {
	for _, home := range []string{w.ClientHome, os.Getenv(userCodexHomeVar), os.Getenv("CODEX_HOME")} {
		if home != "" && !isAgentHome(home) {
			return home
		}
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".codex")
}

// userCodexHomeVar carries the user's Codex home into an agent's pane, whose
// CODEX_HOME is the agent's own.
const userCodexHomeVar = "SWITCHBOARD_USER_CODEX_HOME"

// writeCodexHome makes dir the Codex home of the agent: the entries of the
// user's home linked (login, sessions, skills), the user's rules copied (so
// that an "always allow" given in an agent's pane stays with that agent), and
// switchboard's hooks.json, rules and config.toml, the last being the user's
// with the trust of the hooks and of the agent's working folder added.
func writeCodexHome(dir string, w Wiring) (Wired, error) {
	user := userCodexHome(w)
	if err := os.MkdirAll(filepath.Join(dir, "rules"), 0o700); err != nil {
		return Wired{}, fmt.Errorf("write the Codex home: %w", err)
	}
	if err := markAgentHome(dir); err != nil {
		return Wired{}, err
	}
	own := map[string]bool{"config.toml": true, "hooks.json": true, "rules": true, agentHomeMark: true}
	if err := linkEntries(user, dir, func(name string) bool { return !own[name] }); err != nil {
		return Wired{}, err
	}
	if err := copyEntries(filepath.Join(user, "rules"), filepath.Join(dir, "rules"), func(name string) bool {
		return strings.HasSuffix(name, ".rules") && name != "switchboard.rules"
	}); err != nil {
		return Wired{}, err
	}
	if err := writeFile(filepath.Join(dir, "rules", "switchboard.rules"), w.CodexRules()); err != nil {
		return Wired{}, err
	}
	hooksPath := filepath.Join(dir, "hooks.json")
	if err := writeFile(hooksPath, w.CodexHooks()); err != nil {
		return Wired{}, err
	}
	config, err := os.ReadFile(filepath.Join(user, "config.toml"))
	if err != nil && !os.IsNotExist(err) {
		return Wired{}, fmt.Errorf("read your Codex config: %w", err)
	}
	if err := writeFile(filepath.Join(dir, "config.toml"), w.codexConfig(config, hooksPath)); err != nil {
		return Wired{}, err
	}
	env := map[string]string{"CODEX_HOME": dir, userCodexHomeVar: user}
	args := slices.Clone(codexArgs)
	if w.MCP {
		env[MCPEnv] = "1"
		args = append(args, w.CodexMCPOverrides()...)
	}
	return Wired{Path: dir, Env: env, Args: args}, nil
}

// CodexMCPOverrides are the -c options that give Codex switchboard's MCP
// server, its tools approved without a prompt.
func (w Wiring) CodexMCPOverrides() []string {
	command, args, env := w.mcpServer()
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = tomlString(a)
	}
	var pairs []string
	for _, k := range slices.Sorted(maps.Keys(env)) {
		pairs = append(pairs, k+"="+tomlString(env[k]))
	}
	table := "mcp_servers." + MCPServerName + "."
	return []string{
		"-c", table + "command=" + tomlString(command),
		"-c", table + "args=[" + strings.Join(quoted, ",") + "]",
		"-c", table + "env={" + strings.Join(pairs, ",") + "}",
		"-c", table + `default_tools_approval_mode="approve"`,
	}
}

// codexConfig is the user's config.toml with the trust of the hooks and of
// the agent's folder added as tables at its end. Codex takes neither from
// -c. Where the user's file already has what a table would redefine (its
// own entry for the folder, an inline hooks or projects table), that table
// is left out rather than make the file invalid: Codex then asks.
func (w Wiring) codexConfig(user []byte, hooksPath string) []byte {
	config := append(bytes.TrimRight(user, "\n"), "\n\n# added by switchboard: trust in its hooks and in the agent's folder\n"...)
	if !definesInline(user, "hooks") {
		config = append(config, w.codexTrust(hooksPath)...)
	}
	if w.Dir != "" && !definesInline(user, "projects") && !mentionsProject(user, w.Dir) {
		config = append(config, "[projects."+tomlString(w.Dir)+"]\ntrust_level = \"trusted\"\n"...)
	}
	return config
}

// definesInline reports whether a TOML file sets key at its top level
// ("hooks = {...}", before any table), after which no [key.x] table may
// be added.
func definesInline(config []byte, key string) bool {
	for _, line := range strings.Split(string(config), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			return false
		}
		if k, _, ok := strings.Cut(t, "="); ok && strings.TrimSpace(k) == key {
			return true
		}
	}
	return false
}

// mentionsProject reports whether a projects table of the file names dir,
// however it is quoted.
func mentionsProject(config []byte, dir string) bool {
	for _, line := range strings.Split(string(config), "\n") {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "[projects") && strings.Contains(t, dir) {
			return true
		}
	}
	return false
}
