package mailbox

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"switchboard/internal/atomicfile"
)

// Shown is what an agent's conversation has been shown of its inbox, by
// every channel: its hooks (the model's context) and the master (a notice
// typed as the prompt). Each channel shows only what is not in it, so a
// message enters a conversation once.
//
// It is kept by message, not by a time mark: a delivered file's name sorts
// by delivery time, but a file planted with a name far in the future, or a
// clock stepped back, would move a mark past real mail, and silence it.
type Shown struct {
	// Names lists, sorted, the unread messages shown, by their delivered
	// file names. Names no longer unread are dropped in time (prune).
	Names []string
	// Whole is the stamp of the inbox (InboxSummary.Stamp) at a moment the
	// conversation had been shown everything in it: a hook that finds the
	// inbox so need not list its names.
	Whole string
	// Typed lists, sorted, the messages a notice typed as the prompt
	// announced by their titles, whose bodies the prompt's hook hands the
	// model with it (TakeTyped): a message reaches the model whole in the
	// one request its notice starts.
	Typed []string
}

// Has reports whether the message named name has been shown.
func (s Shown) Has(name string) bool {
	_, found := slices.BinarySearch(s.Names, name)
	return found
}

// Unshown picks from the sorted names of an inbox those not shown, oldest
// first.
func (s Shown) Unshown(sorted []string) []string {
	out := make([]string, 0, len(sorted))
	for _, name := range sorted {
		if !s.Has(name) {
			out = append(out, name)
		}
	}
	return out
}

// Add records names as shown.
func (s *Shown) Add(names ...string) {
	for _, name := range names {
		s.Names = insertSorted(s.Names, name)
	}
}

// Remove takes names back: they were to be shown and were not.
func (s *Shown) Remove(names ...string) {
	gone := func(n string) bool { return slices.Contains(names, n) }
	s.Names = slices.DeleteFunc(s.Names, gone)
	s.Typed = slices.DeleteFunc(s.Typed, gone)
	s.Whole = ""
}

// shownHeader starts a record; a record of an older form (a time mark) is
// read as nothing shown, so that a message is shown again rather than
// never.
const shownHeader = "switchboard-shown 2"

// typedMark starts the line of a typed name; names never start with it.
const typedMark = ">"

func (s Shown) encode() []byte {
	var b bytes.Buffer
	b.WriteString(shownHeader + " " + s.Whole + "\n")
	for _, name := range s.Names {
		b.WriteString(name + "\n")
	}
	for _, name := range s.Typed {
		b.WriteString(typedMark + name + "\n")
	}
	return b.Bytes()
}

func decodeShown(data []byte) Shown {
	head, body, _ := bytes.Cut(data, []byte("\n"))
	whole, ok := strings.CutPrefix(string(head), shownHeader)
	if !ok {
		return Shown{}
	}
	s := Shown{Whole: strings.TrimSpace(whole)}
	for line := range strings.Lines(string(body)) {
		name := strings.TrimSpace(line)
		if typed, ok := strings.CutPrefix(name, typedMark); ok {
			s.Typed = insertSorted(s.Typed, typed)
		} else if name != "" {
			s.Add(name)
		}
	}
	return s
}

// insertSorted adds name to a sorted list that lacks it.
func insertSorted(list []string, name string) []string {
	if i, found := slices.BinarySearch(list, name); !found {
		return slices.Insert(list, i, name)
	}
	return list
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
// rest, and no other channel will. With whole set, the caller showed the
// whole inbox as the stamp whole says (InboxSummary.Stamp).
func (s *Store) ClaimShown(agent string, names []string, whole string) (taken []string, err error) {
	err = s.updateShown(agent, func(sh *Shown) {
		for _, name := range names {
			if sh.Has(name) {
				taken = append(taken, name)
			}
		}
		sh.Add(names...)
		if whole != "" {
			sh.Whole = whole
		}
	})
	return taken, err
}

// ClaimTyped is ClaimShown for messages a notice typed as the prompt is
// about to announce: those not shown already are also kept for the
// prompt's hook, which hands the model their bodies (TakeTyped).
func (s *Store) ClaimTyped(agent string, names []string) (taken []string, err error) {
	err = s.updateShown(agent, func(sh *Shown) {
		for _, name := range names {
			if sh.Has(name) {
				taken = append(taken, name)
				continue
			}
			sh.Add(name)
			sh.Typed = insertSorted(sh.Typed, name)
		}
	})
	return taken, err
}

// TakeTyped returns the messages typed notices announced whose bodies have
// not been handed over yet, and forgets them: the caller hands them over.
func (s *Store) TakeTyped(agent string) (typed []string, err error) {
	err = s.updateShown(agent, func(sh *Shown) {
		typed, sh.Typed = sh.Typed, nil
	})
	return typed, err
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

// pruneAt is how many names a record holds before those no longer unread
// are dropped.
const pruneAt = 64

// updateShown changes the agent's record under a lock, so that its hooks
// and the master, each in its own process, never lose each other's marks.
// The record is written only when it changed.
func (s *Store) updateShown(agent string, change func(*Shown)) error {
	return WithLock(s.shownPath(agent)+".lock", func() error {
		old := s.ReadShown(agent)
		next := Shown{Names: slices.Clone(old.Names), Whole: old.Whole, Typed: slices.Clone(old.Typed)}
		change(&next)
		if len(next.Names)+len(next.Typed) > pruneAt {
			s.prune(agent, &next)
		}
		if next.Whole == old.Whole && slices.Equal(next.Names, old.Names) && slices.Equal(next.Typed, old.Typed) {
			return nil
		}
		return atomicfile.WriteFile(s.shownPath(agent), next.encode(), atomicfile.Options{TmpDir: s.stageFor(agent)})
	})
}

// prune drops from the record the messages no longer unread: read ones are
// never shown again, and the record stays the size of the inbox.
func (s *Store) prune(agent string, sh *Shown) {
	unread, err := s.UnreadNames(agent)
	if err != nil {
		return
	}
	slices.Sort(unread)
	read := func(name string) bool {
		_, found := slices.BinarySearch(unread, name)
		return !found
	}
	sh.Names = slices.DeleteFunc(sh.Names, read)
	sh.Typed = slices.DeleteFunc(sh.Typed, read)
}
