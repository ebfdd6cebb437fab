package mailbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"switchboard/internal/jsonl"
)

// Only the master writes inboxes, and it keeps a record of each file it
// writes there: a routed message's copy is vouched for by the message's
// audit log record (id, sender, seq, delivery time, recipients, content
// hash), a notice of its own by a line in log/notices.jsonl. A file in an
// inbox that neither vouches for was put there by someone else, and is
// shown as unverified. This keeps honest mistakes and casual forgeries out;
// a process that can write the user's files can forge the records too.

// Unverified is how a file no record vouches for is marked wherever it is
// listed or read.
const Unverified = "UNVERIFIED"

// Vouches reports whether the file name in agent's mailbox, holding m, is a
// copy the master delivered under this record.
func (r *Record) Vouches(agent, name string, m *Message) bool {
	if r.Message == nil || r.Message.ID != m.ID || r.Message.From != m.From || r.Seq != m.Seq ||
		!r.Time.Equal(m.DeliveredAt) || !slices.Contains(r.Delivered, agent) {
		return false
	}
	if name != FileName(m.DeliveredAt, m.Priority, m.ID) {
		return false
	}
	return r.Hash == "" || r.Hash == Fingerprint(m)
}

// NoticeMark is one line of log/notices.jsonl: a notice the master wrote
// into an inbox.
type NoticeMark struct {
	ID   string `json:"id"`
	To   string `json:"to"`
	Hash string `json:"hash"`
	// Answers is, for a response another host's master routed, the
	// request of this host's it answers, by this master's check.
	Answers string `json:"answers,omitempty"`
}

// Vouches reports whether the file name in agent's mailbox, holding m, is
// the notice this mark records: a notice of the master's own, or a copy it
// took from the hub.
func (n NoticeMark) Vouches(agent, name string, m *Message) bool {
	return markedCopy(m) && n.ID == m.ID && n.To == agent && name == FileName(m.DeliveredAt, m.Priority, m.ID) && n.Hash == Fingerprint(m)
}

// markedCopy reports whether a copy is vouched for by a mark in the record
// of notices rather than by the log: the master's own notices, and copies
// routed by another host's master, which this log does not hold.
func markedCopy(m *Message) bool { return m.From == System || m.Via != "" }

// NoticesPath is the record of the notices the master wrote into inboxes.
func (s *Store) NoticesPath() string {
	return filepath.Join(filepath.Dir(s.LogPath()), "notices.jsonl")
}

// StartNoticeMarks makes the record of notices when there is none, and
// reports whether it did.
func (s *Store) StartNoticeMarks() (created bool, err error) {
	f, err := os.OpenFile(s.NoticesPath(), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("start the record of notices: %w", err)
	}
	return true, f.Close()
}

// VouchNotice records a notice before the master delivers it to agent.
func (s *Store) VouchNotice(agent string, m *Message) error {
	if err := jsonl.Append(s.NoticesPath(), NoticeMark{ID: m.ID, To: agent, Hash: Fingerprint(m)}, s.Durable); err != nil {
		return fmt.Errorf("record notice: %w", err)
	}
	return nil
}

// MarkOf is the mark of a copy of m for agent; answers is the request it
// answers, if any.
func MarkOf(agent string, m *Message, answers string) NoticeMark {
	return NoticeMark{ID: m.ID, To: agent, Hash: Fingerprint(m), Answers: answers}
}

// VouchCopies records copies before the master delivers them, with one
// write: copies another host's master routed, which this log does not hold.
// The record is synced by SyncMarks, which the master calls before it tells
// the hub the copies are stored: a mark lost to a power cut comes back with
// its copy.
func (s *Store) VouchCopies(copies []NoticeMark) error {
	marks := make([]any, len(copies))
	for i, m := range copies {
		marks[i] = m
	}
	if len(marks) == 0 {
		return nil
	}
	if err := jsonl.AppendAll(s.NoticesPath(), marks, false); err != nil {
		return fmt.Errorf("record copies: %w", err)
	}
	return nil
}

// SyncMarks makes the record of notices and copies survive a power cut.
func (s *Store) SyncMarks() error {
	if !s.Durable {
		return nil
	}
	f, err := os.OpenFile(s.NoticesPath(), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return fmt.Errorf("sync the record of notices: %w", err)
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync the record of notices: %w", err)
	}
	return nil
}

// NoticeKey indexes notice marks.
func NoticeKey(id, to string) string { return id + "/" + to }

// A Voucher tells the files the master delivered from files put in an inbox
// by anyone else, for readers of inboxes: it finds a message's record in the
// audit log by seq (a binary search, the log being in seq order), and a
// notice's mark from the end of the record of notices back. It is not safe
// for concurrent use.
type Voucher struct {
	store   *Store
	log     *logSeeker
	notices *noticeMarks // opened at the first notice asked about
	err     error        // the log could not be read: no message is vouched for

	// The line after the last record found: readers list messages in
	// order, and the next one's record is usually there.
	nextSeq, nextAt int64
}

// NewVoucher returns a Voucher for the store's inboxes; Close it after use.
func (s *Store) NewVoucher() *Voucher { return &Voucher{store: s} }

// Close closes the log and the record of notices.
func (v *Voucher) Close() error {
	var err error
	if v.log != nil {
		err = v.log.Close()
	}
	if v.notices != nil {
		err = errors.Join(err, v.notices.close())
	}
	return err
}

// Vouches reports whether the master delivered the file name, holding m, to
// agent.
func (v *Voucher) Vouches(agent, name string, m *Message) bool {
	_, ok := v.Record(agent, name, m)
	return ok
}

// Record returns the log record under which the master delivered the file
// name, holding m, to agent, and whether it did. A notice of the master's
// own, or a copy another host's master routed, is vouched for by its mark,
// and has no record here: the Record then holds only what the mark says
// (Answers).
func (v *Voucher) Record(agent, name string, m *Message) (Record, bool) {
	if markedCopy(m) {
		if v.notices == nil {
			v.notices = v.store.openNoticeMarks()
		}
		mark, ok := v.notices.find(agent, name, m)
		return Record{Answers: mark.Answers}, ok
	}
	rec, ok := v.record(m.Seq)
	if !ok || !rec.Vouches(agent, name, m) {
		return Record{}, false
	}
	return rec, true
}

// record finds the log record numbered seq.
func (v *Voucher) record(seq int64) (Record, bool) {
	if seq <= 0 || !v.openLog() {
		return Record{}, false
	}
	if seq == v.nextSeq && v.nextAt < v.log.size {
		if h, _, ok := v.log.headAt(v.nextAt); ok && h.Seq == seq {
			return v.recordAt(v.nextAt)
		}
	}
	off := v.log.first(func(h lineHead) bool { return h.Seq < seq })
	if h, _, ok := v.log.headAt(off); !ok || h.Seq != seq {
		return Record{}, false
	}
	return v.recordAt(off)
}

// Broken is why the log could not be read, when it could not: then the
// Voucher vouches for no message, whatever the files hold.
func (v *Voucher) Broken() error {
	v.openLog()
	return v.err
}

func (v *Voucher) openLog() bool {
	if v.log != nil {
		return true
	}
	if v.err != nil {
		return false
	}
	v.log, v.err = openLogSeeker(v.store.LogPath())
	return v.err == nil
}

// recordAt decodes the record at off, and notes where the next starts.
func (v *Voucher) recordAt(off int64) (Record, bool) {
	rec, next, ok := v.log.recordAt(off)
	if ok {
		v.nextSeq, v.nextAt = rec.Seq+1, next
	}
	return rec, ok
}
