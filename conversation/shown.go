package conversation

import (
	"bytes"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"switchboard/internal/atomicfile"
	"switchboard/mailbox"
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
	// Whole is the stamp of the inbox (mailbox.InboxSummary.Stamp) at a
	// moment the conversation had been shown everything in it: a hook that
	// finds the inbox so need not list its names.
	Whole string
	// Typed lists, sorted, the messages a notice typed as the prompt
	// announced by their titles, whose bodies the prompt's hook hands the
	// model with it (TakeTyped): a message reaches the model whole in the
	// one request its notice starts.
	Typed []string

	// kept is how many names the record held after its names no longer
	// unread were last dropped: they are dropped again once it holds twice
	// as many (prune).
	kept int
	// older says the record was read from a file of an older form, to be
	// written in the current one.
	older bool
}

// Has reports whether the message named name has been shown.
func (s Shown) Has(name string) bool {
	_, found := slices.BinarySearch(s.Names, name)
	return found
}

// Unshown picks from the sorted names of an inbox those not shown, oldest
// first. Both lists are sorted: they are walked side by side, each once.
func (s Shown) Unshown(sorted []string) []string {
	out := make([]string, 0, len(sorted))
	i := 0 // s.Names[:i] sort before name
	for k, name := range sorted {
		if k > 0 && name < sorted[k-1] {
			i, _ = slices.BinarySearch(s.Names, name) // not sorted after all
		}
		for i < len(s.Names) && s.Names[i] < name {
			i++
		}
		if i == len(s.Names) || s.Names[i] != name {
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

// shownHeader starts a record, followed on its line by kept and Whole;
// then come the typed names, each marked, and the names shown. The typed
// names come first, so that a prompt's hook, which takes them, tells from
// the record's first lines that there are none (TakeTyped).
//
// A record of form 2 (Whole alone on the first line, the typed names
// anywhere) is read as well; one of a form older still (a time mark) is
// read as nothing shown, so that a message is shown again rather than
// never.
const (
	shownHeader  = "switchboard-shown 3"
	shownHeader2 = "switchboard-shown 2"
)

// shownHeadSize is how much of a record is read for its first lines: the
// header line and the start of the next one fit in it.
const shownHeadSize = 1024

// typedMark starts the line of a typed name; names never start with it.
const typedMark = ">"

func (s Shown) encode() []byte {
	size := len(shownHeader) + len(s.Whole) + 32
	for _, name := range s.Typed {
		size += len(typedMark) + len(name) + 1
	}
	for _, name := range s.Names {
		size += len(name) + 1
	}
	var b bytes.Buffer
	b.Grow(size)
	b.WriteString(shownHeader + " " + strconv.Itoa(s.kept) + " " + s.Whole + "\n")
	for _, name := range s.Typed {
		b.WriteString(typedMark)
		b.WriteString(name)
		b.WriteByte('\n')
	}
	for _, name := range s.Names {
		b.WriteString(name)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// decodeHead reads a record's first line: its form, kept and Whole; ok is
// false for a record of no form read.
func decodeHead(head string) (s Shown, ok bool) {
	if rest, isCurrent := strings.CutPrefix(head, shownHeader+" "); isCurrent {
		kept, whole, _ := strings.Cut(rest, " ")
		n, err := strconv.Atoi(kept)
		if err != nil || n < 0 {
			return Shown{}, false
		}
		return Shown{Whole: strings.TrimSpace(whole), kept: n}, true
	}
	if whole, isForm2 := strings.CutPrefix(head, shownHeader2); isForm2 {
		return Shown{Whole: strings.TrimSpace(whole), older: true}, true
	}
	return Shown{}, false
}

func decodeShown(data []byte) Shown {
	head, body, _ := bytes.Cut(data, []byte("\n"))
	s, ok := decodeHead(string(head))
	if !ok {
		return Shown{older: true}
	}
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

// insertSorted adds name to a sorted list that lacks it. A record is
// written sorted: each name read from it goes at the end.
func insertSorted(list []string, name string) []string {
	if n := len(list); n == 0 || list[n-1] < name {
		return append(list, name)
	}
	if i, found := slices.BinarySearch(list, name); !found {
		return slices.Insert(list, i, name)
	}
	return list
}

// Shown returns what the agent has been shown; nothing when it has no
// record yet.
func (b *Book) Shown(agent string) Shown {
	data, err := os.ReadFile(b.shownPath(agent))
	if err != nil {
		return Shown{}
	}
	return decodeShown(data)
}

// shownHead is what the first lines of a record tell.
type shownHead struct {
	whole string
	// typed: notices typed names that no prompt's hook took yet; unknown
	// when the first lines do not tell (a record of an older form).
	typed, unknown bool
}

// readShownHead reads the first lines of the agent's record alone, however
// many names follow. The record is replaced whole, never written in place,
// so what they tell held at the moment they were read.
func (b *Book) readShownHead(agent string) shownHead {
	f, err := os.Open(b.shownPath(agent))
	if err != nil {
		return shownHead{} // no record: nothing shown, nothing typed
	}
	defer f.Close()
	buf := make([]byte, shownHeadSize)
	n, _ := io.ReadFull(f, buf)
	head, next, found := bytes.Cut(buf[:n], []byte("\n"))
	sh, ok := decodeHead(string(head))
	if !found || !ok {
		return shownHead{unknown: true}
	}
	return shownHead{whole: sh.Whole, typed: bytes.HasPrefix(next, []byte(typedMark)), unknown: sh.older}
}

// ShownWhole reports whether the agent was shown the whole of its inbox as
// the stamp says (mailbox.InboxSummary.Stamp; "" is no inbox shown whole), from
// the record's first line alone: before most prompts it was, and the names
// need not be read.
func (b *Book) ShownWhole(agent, stamp string) bool {
	return stamp != "" && b.readShownHead(agent).whole == stamp
}

// ClaimShown records names (inbox file names) as shown and returns those
// of them that were shown already, by another channel: the caller shows the
// rest, and no other channel will. With whole set, the caller showed the
// whole inbox as the stamp whole says (mailbox.InboxSummary.Stamp).
func (b *Book) ClaimShown(agent string, names []string, whole string) (taken []string, err error) {
	err = b.updateShown(agent, func(sh *Shown) {
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
func (b *Book) ClaimTyped(agent string, names []string) (taken []string, err error) {
	err = b.updateShown(agent, func(sh *Shown) {
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
// Before most prompts there are none, as the record's first lines tell:
// nothing is locked, read further, or written.
func (b *Book) TakeTyped(agent string) (typed []string, err error) {
	if head := b.readShownHead(agent); !head.typed && !head.unknown {
		return nil, nil
	}
	err = b.updateShown(agent, func(sh *Shown) {
		typed, sh.Typed = sh.Typed, nil
	})
	return typed, err
}

// ForgetShown takes back a claim: the messages were not shown after all.
func (b *Book) ForgetShown(agent string, names []string) error {
	return b.updateShown(agent, func(sh *Shown) { sh.Remove(names...) })
}

// ResetShown forgets what the agent was shown: a new conversation (a pane
// started afresh) has seen nothing yet.
func (b *Book) ResetShown(agent string) error {
	return b.updateShown(agent, func(sh *Shown) { *sh = Shown{} })
}

// pruneAt is how many names a record holds at least before those no longer
// unread are dropped.
const pruneAt = 64

// updateShown changes the agent's record under a lock, so that its hooks
// and the master, each in its own process, never lose each other's marks.
// The record is written only when it changed (or was of an older form).
func (b *Book) updateShown(agent string, change func(*Shown)) error {
	return mailbox.WithLock(b.shownPath(agent)+".lock", func() error {
		old := b.Shown(agent)
		next := Shown{Names: slices.Clone(old.Names), Whole: old.Whole, Typed: slices.Clone(old.Typed), kept: old.kept}
		change(&next)
		// The names a change adds were unread a moment ago: the record is
		// pruned for those it held before.
		if len(old.Names) > max(pruneAt, 2*old.kept) && len(next.Names) > 0 {
			b.prune(agent, &next)
		}
		if !old.older && next.kept == old.kept && next.Whole == old.Whole && slices.Equal(next.Names, old.Names) && slices.Equal(next.Typed, old.Typed) {
			return nil
		}
		return atomicfile.WriteFile(b.shownPath(agent), next.encode(), atomicfile.Options{TmpDir: b.store.StageFor(agent)})
	})
}

// prune drops from the record the messages no longer unread: read ones are
// never shown again. It lists the inbox, so it runs only once the record
// doubled since it last ran, never for a record that did not grow: the
// record stays within a few times the size of the inbox, and the cost of
// listing it is spread over the names added. The folder is listed, not
// read through its index: the master prunes too, and an index it found
// stale would have it open and check every new file.
func (b *Book) prune(agent string, sh *Shown) {
	unread, err := b.store.UnreadNames(agent)
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
	sh.kept = len(sh.Names)
}
