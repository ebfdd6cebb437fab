package master

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"switchboard/internal/safetext"
	"switchboard/mailbox"
)

// maxKnown bounds the names the master remembers as checked; past it the
// memory is dropped, and files are checked again as they come.
const maxKnown = 1 << 17

// knownKey names a file of an agent's mailbox, unread or read alike: a
// message moving to read/ keeps it. It is a hash, 8 bytes for a name of 70:
// two names that hash alike could only be taken for each other with the
// same fileID, which two files never have.
func knownKey(agent, name string) uint64 {
	var h maphash.Hash
	h.SetSeed(knownSeed)
	h.WriteString(agent)
	h.WriteByte('/')
	h.WriteString(name)
	return h.Sum64()
}

var knownSeed = maphash.MakeSeed()

// fileID tells one version of a file from another: its inode, and the time
// its inode last changed. A file put in another's place has another inode,
// or the same number reused with a new change time; a file written to in any
// way (through another name, through a mapping, with its times set back)
// has a new change time, which no one but the kernel sets. The zero fileID
// is a file the system told nothing of.
type fileID struct {
	inode  uint64
	change int64 // ns
}

// idOf is a file's fileID.
func idOf(fi os.FileInfo) fileID {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fileID{inode: st.Ino, change: st.Ctim.Nano()}
	}
	return fileID{}
}

// noteWritten remembers a file the master put in agent's inbox, so that its
// arrival is not checked like a stranger's: the file found under its name,
// if it holds what was written. One put in its place at once is left to
// the check of its arrival, which reports it.
func (m *Master) noteWritten(agent string, msg *mailbox.Message) {
	want, err := msg.Encode()
	if err != nil {
		return
	}
	m.noteCopy(agent, mailbox.FileName(msg.DeliveredAt, msg.Priority, msg.ID), func(got []byte) bool { return bytes.Equal(got, want) })
}

// largestCopy bounds what noteCopy reads: no copy the master writes comes
// near it, so a larger file under a copy's name is another's.
const largestCopy = 4 * mailbox.MaxFileSize

// noteCopy is noteWritten for a copy written under name, which holds tells
// from any other content.
func (m *Master) noteCopy(agent, name string, holds func([]byte) bool) {
	f, err := os.OpenFile(m.store.UnreadPath(agent, name), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > largestCopy {
		return
	}
	got := make([]byte, fi.Size()+1)
	n, _ := io.ReadFull(f, got)
	if int64(n) != fi.Size() || !holds(got[:n]) {
		return
	}
	m.noteKnown(knownKey(agent, name), idOf(fi))
}

// noteKnown remembers a file as checked, as it is now: vouched for, or
// reported to the overseers.
func (m *Master) noteKnown(key uint64, id fileID) {
	if len(m.known) >= maxKnown {
		clear(m.known)
	}
	m.known[key] = id
}

// noteChecked remembers a file of agent's inbox as checked, as it is now,
// for the sweep of unread files to pass over. A file in read/ is
// forgotten instead: no sweep lists it, and it gets no further events
// unless it changes, which has it checked whatever the master remembers.
// What the master remembers is then bounded by the unread mail, not by
// the messages read since the last sweep.
func (m *Master) noteChecked(agent, path string, fi os.FileInfo) {
	key := knownKey(agent, filepath.Base(path))
	if filepath.Dir(path) == m.store.ReadDir(agent) {
		delete(m.known, key)
		return
	}
	m.noteKnown(key, idOf(fi))
}

// stillKnown reports whether fi is the file the master checked under key
// (found vouched for, or reported), unchanged. A move to read/ changes the
// inode's change time too, so a read message is checked once more there.
func (m *Master) stillKnown(key uint64, fi os.FileInfo) bool {
	id, ok := m.known[key]
	if !ok {
		return false
	}
	now := idOf(fi)
	if id == (fileID{}) || now == (fileID{}) {
		m.known[key] = now
		return true
	}
	return id == now
}

// planted is a file in an inbox that the master did not deliver.
type planted struct {
	path string
	msg  *mailbox.Message // nil when it cannot be read as a message
	at   time.Time        // its modification time
}

// checkInboxes looks at the files that appeared, or were written to, in
// inboxes, and those the sweep lists, and reports those no record vouches
// for to the overseers. Readers show such files as unverified whether or
// not the master saw them.
func (m *Master) checkInboxes(arrived map[string][]arrival) {
	if len(arrived) == 0 {
		return
	}
	var v *mailbox.Voucher
	for _, agent := range slices.Sorted(maps.Keys(arrived)) {
		var found []planted
		// A file that arrived and was written to in one pass is looked at
		// once, as written to: its arrival may be the master's own.
		written := make(map[string]bool)
		var paths []string
		for _, a := range arrived[agent] {
			if _, ok := written[a.path]; !ok {
				paths = append(paths, a.path)
			}
			written[a.path] = written[a.path] || a.written
		}
		for _, path := range paths {
			name := filepath.Base(path)
			if _, ok := mailbox.ParseFileName(name); !ok {
				continue // not listed by any reader
			}
			fi, err := os.Lstat(path)
			if err != nil || !fi.Mode().IsRegular() {
				continue // gone meanwhile (read, or removed): its next place is checked
			}
			if !written[path] && m.stillKnown(knownKey(agent, name), fi) {
				continue
			}
			if v == nil {
				v = m.store.NewVoucher()
				defer v.Close()
			}
			msg, err := mailbox.Load(path)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if age := m.now().Sub(fi.ModTime()); err != nil && age >= 0 && age < m.opts.Settle {
				// Being written, likely: looked at again once it settles.
				// A time ahead of the clock was set by hand, not by a write.
				time.AfterFunc(m.opts.Settle, func() { m.work.markArrival(agent, arrival{path: path, written: true}) })
				continue
			}
			if err == nil && v.Vouches(agent, name, msg) {
				m.noteChecked(agent, path, fi)
				continue
			}
			found = append(found, planted{path: path, msg: msg, at: fi.ModTime()})
			// Reported once: the check of every inbox every 30 s passes
			// over it until it changes.
			m.noteChecked(agent, path, fi)
		}
		if len(found) > 0 {
			m.reportPlanted(agent, found)
		}
	}
}

// reportPlanted tells the overseers, once, of files in agent's mailbox that
// the master did not deliver.
func (m *Master) reportPlanted(agent string, files []planted) {
	// Recorded first: the readers' inbox indexes check their files again,
	// and count these as unverified before the overseers are told.
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = filepath.Base(f.path)
	}
	if err := m.store.NotePlanted(agent, names, m.now()); err != nil {
		m.logf("cannot record the files planted in the mailbox of %s: %v", agent, err)
		m.noteFull(err)
	}
	var what strings.Builder
	var key strings.Builder
	latest := files[0].at
	for _, f := range files {
		fmt.Fprintf(&key, "%s|%d\n", f.path, f.at.UnixNano())
		if f.at.After(latest) {
			latest = f.at
		}
		if f.msg == nil {
			fmt.Fprintf(&what, "  %s: not a message anyone can read\n", safetext.Line(filepath.Base(f.path)))
			continue
		}
		fmt.Fprintf(&what, "  %s: claims to be from %s, %s, titled %q\n", safetext.Line(filepath.Base(f.path)), safetext.Line(f.msg.From), f.msg.Priority, safetext.Line(f.msg.Title))
	}
	title := fmt.Sprintf("UNVERIFIED: %d files in the mailbox of %s that switchboard did not deliver", len(files), agent)
	if len(files) == 1 {
		title = fmt.Sprintf("UNVERIFIED: a file in the mailbox of %s that switchboard did not deliver", agent)
	}
	if len(files) == 1 && files[0].msg != nil {
		title = fmt.Sprintf("UNVERIFIED: a file in the mailbox of %s claims to be from %s: %s", agent, files[0].msg.From, files[0].msg.Title)
	}
	content := fmt.Sprintf("No record of switchboard vouches for these files in the mailbox of %s (%s):\n%s\n"+
		"Someone wrote them there by hand instead of sending through an outbox. %s sees them marked UNVERIFIED, "+
		"and they are never announced in its pane. Find out who wrote them; remove them once you have.\n",
		agent, m.store.InboxDir(agent), what.String(), agent)
	told := m.tellOverseers("unverified/"+key.String(), safetext.Line(title), content, latest.UTC())
	if len(told) > 0 {
		m.logf("%s; told %s", title, strings.Join(told, ", "))
	}
}

// adoptOldNotices records the notices found in mailboxes when the record
// of notices is new: they were written by a master of a version that kept
// none, and are taken as they are rather than all shown unverified.
func (m *Master) adoptOldNotices() {
	created, err := m.store.StartNoticeMarks()
	if err != nil {
		m.logf("cannot start the record of notices: %v", err)
		return
	}
	if !created {
		return
	}
	for agent := range m.watched {
		entries, err := m.store.List(agent, mailbox.All)
		if err != nil {
			continue
		}
		for _, e := range entries {
			msg, err := mailbox.Load(e.Path)
			if err != nil || msg.From != mailbox.System {
				continue
			}
			if err := m.store.VouchNotice(agent, msg); err != nil {
				m.logf("cannot record the notices of an earlier version: %v", err)
				return
			}
		}
	}
}
