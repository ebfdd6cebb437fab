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
	if a.Tool != tool {
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
