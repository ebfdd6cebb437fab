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

// newMail returns the agent's inbox summary and the messages it has not
// been shown, oldest first (with urgentOnly, the urgent ones alone). The
// names are read only when the summary says something is new: before most
// prompts nothing is.
func newMail(store *mailbox.Store, agent string, m marks, urgentOnly bool) (mailbox.InboxSummary, []mailbox.FileInfo, error) {
	sum, err := store.InboxSummary(agent)
	if err != nil {
		return sum, nil, err
	}
	fresh := sum.Newest > m.all
	if urgentOnly {
		fresh = sum.NewestUrgent > m.all && sum.NewestUrgent > m.urgent
	}
	if !fresh {
		return sum, nil, nil
	}
	names, err := store.InboxIndex(agent)
	if err != nil {
		return sum, nil, err
	}
	return sum, unshown(names, m, urgentOnly), nil
}

// unshown picks, from the sorted names of an agent's inbox, the messages
// not yet shown, oldest first. With urgentOnly, only urgent ones. Names up
// to the mark are skipped by a binary search.
func unshown(sorted []string, m marks, urgentOnly bool) []mailbox.FileInfo {
	start, found := slices.BinarySearch(sorted, m.all)
	if found {
		start++
	}
	var out []mailbox.FileInfo
	for _, name := range sorted[start:] {
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
	return out
}
