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
	"time"

	"switchboard/atomicfile"
)

// indexHeader starts an inbox index file; the version changes with its form.
// The second line is the summary, then come the names, one per line.
const indexHeader = "switchboard-inbox-index 2"

// indexEnd is the index's last line: an index cut short is not used.
const indexEnd = ".\n"

// racyWindow is how long after a folder's last change a listing of it is
// not remembered. A change within the filesystem's timestamp granularity of
// the listing can leave the folder's time as it was, so such a listing is
// used once and not trusted later: the "racily clean" entries of git's
// index, the same problem. Filesystems with nanosecond times tick every few
// milliseconds at most; one whose times have no fraction may tick every
// second or two.
const (
	racyWindow       = 100 * time.Millisecond
	coarseRacyWindow = 2 * time.Second
)

// InboxSummary is what the names of an inbox tell at a glance.
type InboxSummary struct {
	Unread, Urgent int
	// Newest and NewestUrgent are the latest names, "" when none: a hook
	// compares them with what it has shown and reads the names only when
	// something is new.
	Newest, NewestUrgent string
}

func summarize(sorted []string) InboxSummary {
	var sum InboxSummary
	sum.Unread, sum.Urgent = CountNames(sorted)
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
// its times. The summary is the index's second line, read alone. The index
// is a cache: anyone may rebuild it, and nothing depends on it.
func (s *Store) InboxSummary(agent string) (InboxSummary, error) {
	stamp, ok, err := s.inboxStamp(agent)
	if err != nil || !ok {
		return InboxSummary{}, err
	}
	if sum, ok := readIndexHead(s.indexPath(agent), stamp); ok {
		return sum, nil
	}
	names, err := s.rebuildIndex(agent, stamp)
	if err != nil {
		return InboxSummary{}, err
	}
	return summarize(names), nil
}

// InboxIndex returns the names of the agent's unread messages, sorted
// oldest first, from the index when it is current.
func (s *Store) InboxIndex(agent string) ([]string, error) {
	stamp, ok, err := s.inboxStamp(agent)
	if err != nil || !ok {
		return nil, err
	}
	if names, ok := readIndex(s.indexPath(agent), stamp); ok {
		return names, nil
	}
	return s.rebuildIndex(agent, stamp)
}

func (s *Store) indexPath(agent string) string {
	return filepath.Join(s.AgentDir(agent), "inbox.index")
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
	stamp = strconv.FormatInt(info.ModTime().UnixNano(), 10) + " " + strconv.FormatInt(info.Size(), 10)
	stamp += inodeAndChange(info)
	// A folder changed within the racy window is listed every time.
	window := racyWindow
	if info.ModTime().Nanosecond() == 0 {
		window = coarseRacyWindow
	}
	if time.Since(info.ModTime()) <= window {
		stamp += " racy"
	}
	return stamp, true, nil
}

// rebuildIndex lists the inbox (after its stamp was taken, so that a change
// while listing leaves a stamp that no longer matches) and keeps the
// listing unless the stamp is racy.
func (s *Store) rebuildIndex(agent, stamp string) ([]string, error) {
	listed, err := s.UnreadNames(agent)
	if err != nil {
		return nil, err
	}
	names := slices.DeleteFunc(listed, func(name string) bool { return !isDeliveredName(name) })
	slices.Sort(names)
	if !strings.HasSuffix(stamp, " racy") {
		// Best effort: without the index the next call lists again.
		_ = writeIndex(s.TmpDir(agent), s.indexPath(agent), stamp, names)
	}
	return names, nil
}

// readIndexHead reads the header and summary alone.
func readIndexHead(path, stamp string) (InboxSummary, bool) {
	f, err := os.Open(path)
	if err != nil {
		return InboxSummary{}, false
	}
	defer f.Close()
	buf := make([]byte, 1024)
	n, _ := io.ReadFull(f, buf)
	head, rest, ok := bytes.Cut(buf[:n], []byte("\n"))
	if !ok || string(head) != indexHeader+" "+stamp {
		return InboxSummary{}, false
	}
	line, _, ok := bytes.Cut(rest, []byte("\n"))
	if !ok {
		return InboxSummary{}, false
	}
	return parseSummary(string(line))
}

func parseSummary(line string) (InboxSummary, bool) {
	f := strings.Split(line, " ")
	if len(f) != 4 {
		return InboxSummary{}, false
	}
	unread, err1 := strconv.Atoi(f[0])
	urgent, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil {
		return InboxSummary{}, false
	}
	return InboxSummary{Unread: unread, Urgent: urgent, Newest: strings.TrimPrefix(f[2], "-"), NewestUrgent: strings.TrimPrefix(f[3], "-")}, true
}

func readIndex(path, stamp string) ([]string, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	head, body, ok := bytes.Cut(data, []byte("\n"))
	if !ok || string(head) != indexHeader+" "+stamp {
		return nil, false
	}
	if _, body, ok = bytes.Cut(body, []byte("\n")); !ok { // the summary
		return nil, false
	}
	if string(body) == indexEnd {
		return []string{}, true
	}
	body, ok = bytes.CutSuffix(body, []byte("\n"+indexEnd))
	if !ok {
		return nil, false
	}
	return strings.Split(string(body), "\n"), true
}

func writeIndex(tmpDir, path, stamp string, names []string) error {
	sum := summarize(names)
	var b strings.Builder
	b.Grow(len(indexHeader) + len(stamp) + 256 + len(names)*72)
	// Names never hold spaces; "-" stands for none.
	fmt.Fprintf(&b, "%s %s\n%d %d -%s -%s\n", indexHeader, stamp, sum.Unread, sum.Urgent, sum.Newest, sum.NewestUrgent)
	for _, name := range names {
		b.WriteString(name)
		b.WriteByte('\n')
	}
	b.WriteString(indexEnd)
	return atomicfile.WriteFile(path, []byte(b.String()), atomicfile.Options{TmpDir: tmpDir})
}
