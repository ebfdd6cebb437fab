package mailbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"switchboard/atomicfile"
)

// Shown is what an agent's conversation has been shown of its inbox, by
// every channel: its hooks (the model's context) and the master (a notice
// typed as the prompt). Each channel shows only what is not in it, so a
// message enters a conversation once. Messages are named by their delivered
// file names, which sort by delivery time.
type Shown struct {
	// Upto: every message named up to it has been shown.
	Upto string
	// Also lists, sorted, messages after Upto shown ahead of the rest: urgent
	// ones at a checkpoint, or those a typed notice announced.
	Also []string
}

// Has reports whether the message named name has been shown.
func (s Shown) Has(name string) bool {
	if name <= s.Upto {
		return true
	}
	_, found := slices.BinarySearch(s.Also, name)
	return found
}

// Unshown picks from the sorted names of an inbox those not shown, oldest
// first. Names up to Upto are skipped by a binary search.
func (s Shown) Unshown(sorted []string) []string {
	start, found := slices.BinarySearch(sorted, s.Upto)
	if found {
		start++
	}
	out := make([]string, 0, len(sorted)-start)
	for _, name := range sorted[start:] {
		if !s.Has(name) {
			out = append(out, name)
		}
	}
	return out
}

// Add records names as shown.
func (s *Shown) Add(names ...string) {
	for _, name := range names {
		if i, found := slices.BinarySearch(s.Also, name); !found && name > s.Upto {
			s.Also = slices.Insert(s.Also, i, name)
		}
	}
}

// Remove takes names back: they were to be shown and were not.
func (s *Shown) Remove(names ...string) {
	s.Also = slices.DeleteFunc(s.Also, func(n string) bool { return slices.Contains(names, n) })
}

// Advance records every message up to upto as shown.
func (s *Shown) Advance(upto string) {
	if upto <= s.Upto {
		return
	}
	s.Upto = upto
	i, found := slices.BinarySearch(s.Also, upto)
	if found {
		i++
	}
	s.Also = s.Also[i:]
}

func (s Shown) encode() []byte {
	return []byte(s.Upto + "\n" + strings.Join(append(s.Also, ""), "\n"))
}

func decodeShown(data []byte) Shown {
	lines := strings.Split(string(data), "\n")
	s := Shown{Upto: strings.TrimSpace(lines[0])}
	for _, line := range lines[1:] {
		if name := strings.TrimSpace(line); name != "" {
			s.Add(name)
		}
	}
	return s
}

func (s *Store) shownPath(agent string) string { return filepath.Join(s.Dir, agent, "shown") }

// ReadShown returns what the agent has been shown; nothing when it has no
// record yet.
func (s *Store) ReadShown(agent string) Shown {
	data, err := os.ReadFile(s.shownPath(agent))
	if err != nil {
		return Shown{}
	}
	return decodeShown(data)
}

// ClaimShown records names (inbox file names) as shown and returns those
// of them that were shown already, by another channel: the caller shows the
// rest, and no other channel will. With upto set, every message up to it
// counts as shown afterwards too (the caller showed the whole inbox).
func (s *Store) ClaimShown(agent string, names []string, upto string) (taken []string, err error) {
	err = s.updateShown(agent, func(sh *Shown) {
		var beyond []string // not covered by upto
		for _, name := range names {
			switch {
			case sh.Has(name):
				taken = append(taken, name)
			case name > upto:
				beyond = append(beyond, name)
			}
		}
		sh.Advance(upto)
		sh.Add(beyond...)
	})
	return taken, err
}

// ForgetShown takes back a claim: the messages were not shown after all.
func (s *Store) ForgetShown(agent string, names []string) error {
	return s.updateShown(agent, func(sh *Shown) { sh.Remove(names...) })
}

// ResetShown forgets what the agent was shown: a new conversation (a pane
// started afresh) has seen nothing yet.
func (s *Store) ResetShown(agent string) error {
	return s.updateShown(agent, func(sh *Shown) { *sh = Shown{} })
}

// updateShown changes the agent's record under a lock, so that its hooks
// and the master, each in its own process, never lose each other's marks.
// The record is written only when it changed.
func (s *Store) updateShown(agent string, change func(*Shown)) error {
	return WithLock(s.shownPath(agent)+".lock", func() error {
		old := s.ReadShown(agent)
		next := Shown{Upto: old.Upto, Also: slices.Clone(old.Also)}
		change(&next)
		if next.Upto == old.Upto && slices.Equal(next.Also, old.Also) {
			return nil
		}
		return atomicfile.WriteFile(s.shownPath(agent), next.encode(), atomicfile.Options{TmpDir: s.stageFor(agent)})
	})
}
