package approvals

import (
	"strings"
	"time"
)

// Decisions an approval remembers.
const (
	Always = "always"
	Never  = "never"
)

// Approval is one remembered answer.
type Approval struct {
	ID    string `json:"id"`
	Agent string `json:"agent"`
	Tool  string `json:"tool"`
	// Rule is what the call must match, in the client's words: a Bash
	// command, or a prefix of one ending in " *" or ":*"; empty matches
	// every call of the tool.
	Rule     string    `json:"rule,omitempty"`
	Decision string    `json:"decision"`
	By       string    `json:"by"`
	At       time.Time `json:"at"`
}

// Matches reports whether a call of tool with the command (for shells; ""
// for other tools) falls under the approval.
func (a Approval) Matches(tool, command string) bool {
	if Canonical(a.Tool) != Canonical(tool) {
		return false
	}
	if a.Rule == "" {
		return true
	}
	for _, wildcard := range []string{" *", ":*"} {
		if prefix, ok := strings.CutSuffix(a.Rule, wildcard); ok {
			return command == prefix || strings.HasPrefix(command, prefix+" ")
		}
	}
	return command == a.Rule
}

// Describe says what an approval covers, for people: "Bash(npm test *)",
// "Write (every call)".
func Describe(tool, rule string) string {
	if rule == "" {
		return tool + " (every call)"
	}
	return tool + "(" + rule + ")"
}

// ShellTool is the name approvals give every client's shell tool.
const ShellTool = "Bash"

// shellTools are the names the clients give their shell tool.
var shellTools = []string{"Bash", "run_shell_command", "shell", "local_shell", "exec_command"}

// Canonical is a tool's name as approvals compare it: every client's shell
// tool is "Bash", so that an answer about a command holds whichever client
// the agent runs.
func Canonical(tool string) string {
	for _, s := range shellTools {
		if strings.EqualFold(tool, s) {
			return ShellTool
		}
	}
	return tool
}
