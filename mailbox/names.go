package mailbox

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// System is the sender of the notices switchboard itself writes: blocked
// messages, rejections. It is not an agent and cannot be written to.
const System = "switchboard"

// Operator is the built-in agent that stands for the person at the keyboard.
const Operator = "operator"

// Reserved names cannot be agents.
var Reserved = []string{"global_bulletin", "log", System, "all"}

// WellFormedName reports whether name matches ^[a-z0-9][a-z0-9_-]{0,62}$,
// the pattern of agent (and host) names, reserved words aside. It is
// checked by hand: compiling that regular expression costs every start of
// the binary a millisecond, and hooks start it before every prompt.
func WellFormedName(name string) bool {
	if len(name) == 0 || len(name) > 63 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case (c == '_' || c == '-') && i > 0:
		default:
			return false
		}
	}
	return true
}

// ValidateAgentName checks a name against the contract's pattern and the
// reserved words.
func ValidateAgentName(name string) error {
	if name == "" {
		return fmt.Errorf("agent name is empty")
	}
	if !WellFormedName(name) {
		return fmt.Errorf("agent name %q is not valid: use 1-63 lowercase letters, digits, _ or -, starting with a letter or digit", name)
	}
	if slices.Contains(Reserved, name) {
		return fmt.Errorf("agent name %q is reserved (%s are)", name, strings.Join(Reserved, ", "))
	}
	return nil
}

// fileTimeLayout sorts lexically in time order; the fraction is fixed width.
const fileTimeLayout = "20060102T150405.000000000Z"

// FileName is the name of a delivered message: it sorts by delivery time and
// carries the priority, so listing and counting need no parsing.
func FileName(at time.Time, priority, id string) string {
	return at.UTC().Format(fileTimeLayout) + "_" + priority + "_" + id + ".json"
}

// FileInfo is what a delivered file's name tells without opening it.
type FileInfo struct {
	Name     string
	Time     time.Time
	Priority string
	ID       string
}

// ParseFileName reads a delivered file's name. ok is false for names that
// are not delivered messages (temporaries, dotfiles, anything else).
func ParseFileName(name string) (info FileInfo, ok bool) {
	base, found := strings.CutSuffix(name, ".json")
	if !found || strings.HasPrefix(name, ".") {
		return FileInfo{}, false
	}
	stamp, rest, found := strings.Cut(base, "_")
	if !found {
		return FileInfo{}, false
	}
	priority, id, found := strings.Cut(rest, "_")
	if !found || !slices.Contains(priorities, priority) || id == "" {
		return FileInfo{}, false
	}
	at, err := time.Parse(fileTimeLayout, stamp)
	if err != nil {
		return FileInfo{}, false
	}
	return FileInfo{Name: name, Time: at, Priority: priority, ID: id}, true
}

// isDeliveredName tells a delivered name, <time>_<priority>_<id>.json,
// without parsing it: the time has a fixed width, so the priority starts at
// a fixed place.
func isDeliveredName(name string) bool {
	return len(name) >= len(fileTimeLayout)+2 && name[0] != '.' && strings.HasSuffix(name, ".json") && name[len(fileTimeLayout)] == '_'
}

// NamePriority is the priority a delivered name carries, read without
// parsing the name's time.
func NamePriority(name string) (string, bool) {
	if !isDeliveredName(name) {
		return "", false
	}
	priority, _, ok := strings.Cut(name[len(fileTimeLayout)+1:], "_")
	if !ok || !slices.Contains(priorities, priority) {
		return "", false
	}
	return priority, true
}
