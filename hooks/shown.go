package hooks

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"switchboard/mailbox"
)

// marks are the high-water marks of what an agent has been shown: every
// message up to all, and urgent messages up to urgent (PostToolUse shows
// urgent ones alone, ahead of the rest).
type marks struct {
	all    string
	urgent string
}

func marksPath(store *mailbox.Store, agent string) string {
	return filepath.Join(store.AgentDir(agent), "shown")
}

func readMarks(store *mailbox.Store, agent string) marks {
	data, _ := os.ReadFile(marksPath(store, agent))
	// Two lines, either of which may be empty: split before trimming.
	all, urgent, _ := strings.Cut(string(data), "\n")
	return marks{all: strings.TrimSpace(all), urgent: strings.TrimSpace(urgent)}
}

func writeMarks(store *mailbox.Store, agent string, m marks) error {
	return mailbox.Replace(store.TmpDir(agent), store.AgentDir(agent), "shown", []byte(m.all+"\n"+m.urgent+"\n"), false)
}

// unshown picks, from the names in an agent's inbox, the messages not yet
// shown, oldest first. With urgentOnly, only urgent ones. A hook called
// before every prompt compares names with the marks and parses only what
// arrived since the last one.
func unshown(names []string, m marks, urgentOnly bool) []mailbox.FileInfo {
	var out []mailbox.FileInfo
	for _, name := range names {
		if name <= m.all {
			continue
		}
		priority, ok := mailbox.NamePriority(name)
		if !ok {
			continue
		}
		urgent := priority == mailbox.PriorityUrgent
		if (urgentOnly && !urgent) || (urgent && name <= m.urgent) {
			continue
		}
		out = append(out, mailbox.FileInfo{Name: name, Priority: priority})
	}
	slices.SortFunc(out, func(a, b mailbox.FileInfo) int { return strings.Compare(a.Name, b.Name) })
	return out
}
