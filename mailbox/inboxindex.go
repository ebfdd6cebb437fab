package mailbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"switchboard/internal/atomicfile"
	"switchboard/internal/watch"
)

// indexHeader starts an inbox index file; the version changes with its form.
// Then come the summary (the counts of unread, urgent and unverified files,
// the newest name and the newest urgent one, "-" and the name), and the
// names, sorted, one per line, each marked with unverifiedMark when no
// record vouches for its file.
//
// The summary is what the status line and the hooks read before every
// prompt: the head of the file alone, however many names follow. It is
// taken only from the file switchboard wrote, unchanged since, as its seal
// tells (indexSealPath); an index edited by hand has its counts made from
// its names, so that it cannot make them disagree with its names, nor go
// negative.
const indexHeader = "switchboard-inbox-index 5"

// The older forms of the index are read too, their names kept: version 4
// has no summary, version 3 one that nothing sealed.
const (
	indexHeader4 = "switchboard-inbox-index 4"
	indexHeader3 = "switchboard-inbox-index 3"
)

// indexHeadSize is how much of the index is read for its summary: the
// header and the summary line fit in it, whatever the stamp.
const indexHeadSize = 1024

// unverifiedMark starts the line of a name whose file no record vouches
// for; names never start with it.
const unverifiedMark = "!"

// indexEnd is the index's last line: an index cut short is not used.
const indexEnd = ".\n"

// InboxSummary is what the names of an inbox tell at a glance, and the
// count of files among them that no record vouches for.
type InboxSummary struct {
	Unread, Urgent, Unverified int
	// Newest and NewestUrgent are the latest names, "" when none.
	Newest, NewestUrgent string
	// Stamp identifies the inbox as it was summed up: a hook that has shown
	// everything in it records the stamp (conversation.Shown.Whole), and lists the names
	// again only once the inbox changed. It is empty when the inbox changed
	// too recently for a stamp to be trusted.
	Stamp string `json:"-"`
}

func summarize(sorted []string, unverified map[string]bool) InboxSummary {
	var sum InboxSummary
	sum.Unread, sum.Urgent = CountNames(sorted)
	for _, name := range sorted {
		if unverified[name] {
			sum.Unverified++
		}
	}
	if len(sorted) > 0 {
		sum.Newest = sorted[len(sorted)-1]
	}
	for i := len(sorted) - 1; i >= 0; i-- {
		if p, _ := NamePriority(sorted[i]); p == PriorityUrgent {
			sum.NewestUrgent = sorted[i]
			break
		}
	}
	return sum
}

// InboxSummary returns the counts and newest names of the agent's unread
// mail. Listing a folder of ten thousand names costs several milliseconds,
// more than a hook may spend before every prompt, so the sorted listing is
// kept in mailboxes/<agent>/inbox.index with the inbox folder's inode,
// times and size, and made again only when the folder changed: every
// delivery and every read renames a file into or out of it, which changes
// its times. The summary is the index's second line, read alone while the
// index's seal vouches for it; else the names are read, and the index
// written again with its seal. The index is a cache: anyone may rebuild
// it, and nothing depends on it.
//
// The index also keeps whether a record vouches for each file (Voucher), so
// that a file is opened and checked once, when its name is new to the
// index; a notice recorded later makes every index be rebuilt, and the files
// found unverified checked again, and a planted file the master recorded
// (PlantedPath) makes every file be checked again.
func (s *Store) InboxSummary(agent string) (InboxSummary, error) {
	stamp, ok, err := s.inboxStamp(agent)
	if err != nil || !ok {
		return InboxSummary{}, err
	}
	sum, sealed := s.sealedSummary(agent, stamp)
	if !sealed {
		names, unverified, current, err := s.currentIndex(agent, stamp)
		if err != nil {
			return InboxSummary{}, err
		}
		sum = summarize(names, unverified)
		if current {
			// Of an older form, or changed since it was written: written
			// again, sealed, so that the next summary is read from its
			// head. Best effort, as every write of the index.
			_ = s.writeIndex(agent, stamp, names, unverified)
		}
	}
	sum.Stamp = trusted(stamp)
	return sum, nil
}

// trusted is an inbox stamp that tells every later change, "" for a racy
// one.
func trusted(stamp string) string {
	if strings.HasSuffix(stamp, " racy") {
		return ""
	}
	return stamp
}

// InboxIndex returns the names of the agent's unread messages, sorted
// oldest first, from the index when it is current.
func (s *Store) InboxIndex(agent string) ([]string, error) {
	stamp, ok, err := s.inboxStamp(agent)
	if err != nil || !ok {
		return nil, err
	}
	names, _, _, err := s.currentIndex(agent, stamp)
	return names, err
}

// currentIndex returns the inbox's names, sorted, and those among them no
// record vouches for: from the index when it is current (current is then
// true: nothing was written); from the index with the files the records
// written since concern checked again when only those records changed;
// else from a new listing of the folder.
func (s *Store) currentIndex(agent, stamp string) (names []string, unverified map[string]bool, current bool, err error) {
	indexed, verdicts, indexStamp, ok := readIndex(s.indexPath(agent))
	if ok && indexStamp == stamp {
		return indexed, verdicts, true, nil
	}
	if !ok || folderPart(indexStamp) == "" || folderPart(indexStamp) != folderPart(stamp) {
		names, unverified, err = s.rebuildIndex(agent, stamp, indexed, verdicts, indexStamp)
		return names, unverified, false, err
	}
	// The same listing: only verdicts may have gone stale.
	names = indexed
	unverified, _ = s.checkNames(agent, names, stamp, indexed, verdicts, indexStamp)
	_ = s.writeIndex(agent, stamp, names, unverified)
	return names, unverified, false, nil
}

func (s *Store) indexPath(agent string) string {
	return filepath.Join(s.AgentDir(agent), "inbox.index")
}

// indexSealPath holds the seal of the agent's index: the stamp of its file
// (inode, times and size) as switchboard wrote it. A file changed since, or
// put in its place, has another stamp.
func (s *Store) indexSealPath(agent string) string {
	return filepath.Join(s.AgentDir(agent), "inbox.index.seal")
}

// sealedSummary reads the summary at the head of the agent's index, when
// the index is current under stamp and its seal says nothing changed it
// since it was written. A change within the clock's tick of the writing
// that keeps the size would go unseen: no hand is that quick.
func (s *Store) sealedSummary(agent, stamp string) (InboxSummary, bool) {
	f, err := os.Open(s.indexPath(agent))
	if err != nil {
		return InboxSummary{}, false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return InboxSummary{}, false
	}
	seal, err := os.ReadFile(s.indexSealPath(agent))
	if err != nil || string(seal) != watch.Stamp(info)+"\n" {
		return InboxSummary{}, false
	}
	buf := make([]byte, indexHeadSize)
	n, _ := io.ReadFull(f, buf)
	head, rest, _ := bytes.Cut(buf[:n], []byte("\n"))
	line, _, found := bytes.Cut(rest, []byte("\n"))
	if !found || string(head) != indexHeader+" "+stamp {
		return InboxSummary{}, false
	}
	return parseSummary(string(line))
}

// parseSummary reads the summary line an index is written with; ok is
// false for one no index of names could have.
func parseSummary(line string) (sum InboxSummary, ok bool) {
	f := strings.Split(line, " ")
	if len(f) != 5 {
		return InboxSummary{}, false
	}
	var counts [3]int
	for i := range counts {
		n, err := strconv.Atoi(f[i])
		if err != nil || n < 0 {
			return InboxSummary{}, false
		}
		counts[i] = n
	}
	newest, found := strings.CutPrefix(f[3], "-")
	newestUrgent, foundUrgent := strings.CutPrefix(f[4], "-")
	sum = InboxSummary{Unread: counts[0], Urgent: counts[1], Unverified: counts[2], Newest: newest, NewestUrgent: newestUrgent}
	switch {
	case !found || !foundUrgent, sum.Urgent > sum.Unread, sum.Unverified > sum.Unread,
		(sum.Unread == 0) != (newest == ""), (sum.Urgent == 0) != (newestUrgent == ""),
		newest != "" && !isDeliveredName(newest), newestUrgent > newest:
		return InboxSummary{}, false
	}
	if p, _ := NamePriority(newestUrgent); newestUrgent != "" && p != PriorityUrgent {
		return InboxSummary{}, false
	}
	return sum, true
}

// inboxStamp identifies the current state of the inbox folder; ok is false
// when there is no inbox.
func (s *Store) inboxStamp(agent string) (stamp string, ok bool, err error) {
	info, err := os.Stat(s.InboxDir(agent))
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("list mail of %s: %w", agent, err)
	}
	stamp = watch.Stamp(info)
	// A notice recorded may vouch for a file found unverified before, and a
	// planted file found may be one vouched for before.
	if notices, err := os.Stat(s.NoticesPath()); err == nil {
		stamp += " " + noticesMark + strconv.FormatInt(notices.Size(), 10)
	}
	if planted, err := os.Stat(s.PlantedPath()); err == nil {
		stamp += " " + plantedMark + strconv.FormatInt(planted.Size(), 10)
	}
	// A folder changed within the racy window is listed every time.
	if watch.Racy(info) {
		stamp += " racy"
	}
	return stamp, true, nil
}

// rebuildIndex lists the inbox (after its stamp was taken, so that a change
// while listing leaves a stamp that no longer matches), checks the files
// whose verdicts are not known from the index before (its names indexed
// and those among them unverified, under beforeStamp), and keeps the
// listing unless the stamp is racy.
func (s *Store) rebuildIndex(agent, stamp string, indexed []string, verdicts map[string]bool, beforeStamp string) (names []string, unverified map[string]bool, err error) {
	listed, err := s.UnreadNames(agent)
	if err != nil {
		return nil, nil, err
	}
	names = slices.DeleteFunc(listed, func(name string) bool { return !isDeliveredName(name) })
	slices.Sort(names)
	unverified, checked := s.checkNames(agent, names, stamp, indexed, verdicts, beforeStamp)
	if racy, isRacy := strings.CutSuffix(stamp, " racy"); isRacy {
		if checked == 0 {
			return names, unverified, nil
		}
		// The listing may not be trusted later, but what was checked may:
		// kept under a stamp no folder has, for its verdicts alone.
		stamp = racy + " unsettled"
	}
	// Best effort: without the index the next call lists again.
	_ = s.writeIndex(agent, stamp, names, unverified)
	return names, unverified, nil
}

// checkNames returns the names among names whose files no record vouches
// for, and how many files it opened to tell. A name the index held before
// (indexed, sorted, under beforeStamp) keeps its verdict (verdicts holds
// those found unverified) unless the master found it planted since; one
// found unverified keeps it unless a notice was recorded since.
func (s *Store) checkNames(agent string, names []string, stamp string, indexed []string, verdicts map[string]bool, beforeStamp string) (unverified map[string]bool, checked int) {
	planted, plantedKnown := s.plantedBetween(agent, stampSize(beforeStamp, plantedMark), stampSize(stamp, plantedMark))
	if !plantedKnown {
		indexed = nil
	}
	sameNotices := stampPart(beforeStamp, noticesMark) == stampPart(stamp, noticesMark)
	unverified = make(map[string]bool)
	var v *Voucher
	for _, name := range names {
		_, known := slices.BinarySearch(indexed, name)
		if was := verdicts[name]; known && !planted[name] && (!was || sameNotices) {
			if was {
				unverified[name] = true
			}
			continue
		}
		if v == nil {
			v = s.NewVoucher()
			defer v.Close()
		}
		checked++
		m, err := s.LoadUnread(agent, name)
		if errors.Is(err, fs.ErrNotExist) {
			continue // read meanwhile: the listing is stale already
		}
		if err != nil || !v.Vouches(agent, name, m) {
			unverified[name] = true
		}
	}
	return unverified, checked
}

// The parts of a stamp that the record of notices and the record of
// planted files give start with these; no other part does.
const (
	noticesMark = "n"
	plantedMark = "p"
)

// folderPart is the part of a stamp the inbox folder gives, "" when the
// listing under it may not be trusted (racy, or kept unsettled).
func folderPart(stamp string) string {
	var folder []string
	for _, f := range strings.Fields(stamp) {
		switch {
		case f == "racy" || f == "unsettled":
			return ""
		case strings.HasPrefix(f, noticesMark) || strings.HasPrefix(f, plantedMark):
		default:
			folder = append(folder, f)
		}
	}
	return strings.Join(folder, " ")
}

// stampSize is the size of the record a stamp's part marked mark gives, 0
// when it has none.
func stampSize(stamp, mark string) int64 {
	n, _ := strconv.ParseInt(strings.TrimPrefix(stampPart(stamp, mark), mark), 10, 64)
	return n
}

// stampPart is the part of a stamp that starts with mark, "" when none.
func stampPart(stamp, mark string) string {
	for _, f := range strings.Fields(stamp) {
		if strings.HasPrefix(f, mark) {
			return f
		}
	}
	return ""
}

// readIndex reads an index of any form, its names, those among them no
// record vouched for, and its stamp; ok is false when there is none, or it
// is cut short or out of order. Its summary is not read: the names tell
// the same, and cannot have been changed apart from them.
func readIndex(path string) (names []string, unverified map[string]bool, stamp string, ok bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, "", false
	}
	head, body, ok := bytes.Cut(data, []byte("\n"))
	if !ok {
		return nil, nil, "", false
	}
	stamp, withSummary, ok := indexForm(string(head))
	if !ok {
		return nil, nil, "", false
	}
	if withSummary {
		if _, body, ok = bytes.Cut(body, []byte("\n")); !ok {
			return nil, nil, "", false
		}
	}
	names, unverified, ok = parseIndexBody(body)
	return names, unverified, stamp, ok
}

// indexForm reads an index's first line: its stamp, and whether a summary
// line follows; ok is false for a file of no form known.
func indexForm(head string) (stamp string, withSummary, ok bool) {
	if stamp, ok = strings.CutPrefix(head, indexHeader+" "); ok {
		return stamp, true, true
	}
	if stamp, ok = strings.CutPrefix(head, indexHeader4+" "); ok {
		return stamp, false, true
	}
	if stamp, ok = strings.CutPrefix(head, indexHeader3+" "); ok {
		return stamp, true, true
	}
	return "", false, false
}

// parseIndexBody reads the names of an index up to its end line, and those
// among them no record vouched for. A name out of order, or not a
// delivered file's, makes the index unusable: it is made again from the
// folder.
func parseIndexBody(body []byte) (names []string, unverified map[string]bool, ok bool) {
	unverified = make(map[string]bool) // few: most files are vouched for
	if string(body) == indexEnd {
		return []string{}, unverified, true
	}
	body, ok = bytes.CutSuffix(body, []byte("\n"+indexEnd))
	if !ok {
		return nil, nil, false
	}
	names = strings.Split(string(body), "\n")
	for i, name := range names {
		bare, marked := strings.CutPrefix(name, unverifiedMark)
		names[i] = bare
		if marked {
			unverified[bare] = true
		}
		if !isDeliveredName(names[i]) || i > 0 && names[i] <= names[i-1] {
			return nil, nil, false
		}
	}
	return names, unverified, true
}

// writeIndex writes the agent's index, then its seal: the index is written
// whole, under a new name moved into place, so the seal it is given tells
// that very file.
func (s *Store) writeIndex(agent, stamp string, names []string, unverified map[string]bool) error {
	sum := summarize(names, unverified)
	size := len(indexHeader) + len(stamp) + 2*len(sum.Newest) + 64 + len(indexEnd)
	for _, name := range names {
		size += len(unverifiedMark) + len(name) + 1
	}
	var b strings.Builder
	b.Grow(size)
	// Names never hold spaces; "-" comes before each, so that none is empty.
	fmt.Fprintf(&b, "%s %s\n%d %d %d -%s -%s\n", indexHeader, stamp, sum.Unread, sum.Urgent, sum.Unverified, sum.Newest, sum.NewestUrgent)
	for _, name := range names {
		if unverified[name] {
			b.WriteString(unverifiedMark)
		}
		b.WriteString(name)
		b.WriteByte('\n')
	}
	b.WriteString(indexEnd)
	opts := atomicfile.Options{TmpDir: s.StageFor(agent)}
	path := s.indexPath(agent)
	if err := atomicfile.WriteFile(path, []byte(b.String()), opts); err != nil {
		return err
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(s.indexSealPath(agent), []byte(watch.Stamp(info)+"\n"), opts)
}
