package mailbox

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"switchboard/internal/atomicfile"
)

// Statuses of a routed message in the audit log.
const (
	StatusDelivered = "delivered" // every recipient got it
	StatusBlocked   = "blocked"   // no recipient got it
	StatusPartial   = "partial"   // some got it, some were blocked
)

// Record is one line of the audit log: one routed message, numbered by Seq.
type Record struct {
	Seq       int64     `json:"seq"`
	Time      time.Time `json:"time"`
	Status    string    `json:"status"`
	Delivered []string  `json:"delivered,omitempty"`
	Blocked   []Block   `json:"blocked,omitempty"`
	Notes     []string  `json:"notes,omitempty"`
	// Answers is the request a response answers, by the master's check
	// when it routed it: the response names it (in_reply_to), and the
	// request was delivered to the response's sender, or that sender is
	// the operator. A response without it is ordinary mail, never an
	// answer, whatever its correlation id says.
	Answers string `json:"answers,omitempty"`
	// Permission says the master vouches that the message is a permission
	// prompt (Message.Permission): its sender's permission bridge asks it
	// of the one its prompts go to, or it passes such a prompt up. A
	// message without it is no prompt, whatever its fields or title say.
	Permission bool `json:"permission,omitempty"`
	// Cancel says the master vouches that the message is a cancel notice
	// (Message.Cancel): an interrupt, from one who may interrupt each of
	// its recipients, whose field names its sender.
	Cancel bool `json:"cancel,omitempty"`
	// Hash is the Fingerprint of the message as its sender posted it: a
	// later file with the same id is the same message only when it matches.
	Hash    string   `json:"hash,omitempty"`
	Message *Message `json:"message,omitempty"`
}

// Fingerprint identifies a message's content, as posted: the sha256 of its
// encoding without what delivery adds (seq, delivered_at).
func Fingerprint(m *Message) string {
	posted := *m
	posted.Seq, posted.DeliveredAt = 0, time.Time{}
	data, err := posted.Encode()
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// SameMessage reports whether msg is the message the record logged: the
// same sender, and the same content where the record says (records written
// before hashes were kept do not).
func (r *Record) SameMessage(msg *Message) bool {
	if r.Message == nil || r.Message.From != msg.From {
		return false
	}
	return r.Hash == "" || r.Hash == Fingerprint(msg)
}

// Block is one recipient a message did not reach, and why.
type Block struct {
	To     string `json:"to"`
	Reason string `json:"reason"`
}

// Involves reports whether agent sent the message or received it. A
// recipient the rules blocked never received it, and is not involved.
func (r *Record) Involves(agent string) bool {
	if r.Message != nil && r.Message.From == agent {
		return true
	}
	return slices.Contains(r.Delivered, agent)
}

// LogWriter appends records to the audit log. It is used by the master alone,
// which holds the workspace lock. What it must know of the records already
// logged it looks up on disk (the last seq at the log's end, a record by
// its message's id in the index beside it), so that neither its memory nor
// its start grows with the log.
type LogWriter struct {
	file    *os.File
	durable bool
	lastSeq int64
	end     int64      // the offset after the last record written
	lines   *logSeeker // the log, read up to end
	ids     *idIndex

	// What the last Sync made durable: a failed write or sync goes back to
	// it, so that the log never keeps half a line or a record its caller
	// did not act on, and a retry numbers the records the same.
	synced   int64
	syncedTo int64 // lastSeq then
	broken   error // a rollback that failed; the log takes no record until one succeeds
	// uncheckpointed counts the records indexed since the index was last
	// made durable.
	uncheckpointed int
	// Hook, when set, hears of each sync of the log (see
	// atomicfile.SyncHook).
	Hook atomicfile.SyncHook
}

// IDIndexPath is the index of the log at path by message id.
func IDIndexPath(logPath string) string {
	return strings.TrimSuffix(logPath, filepath.Ext(logPath)) + ".ids"
}

// checkpointEvery is how many records are indexed between two syncs of the
// index: at most these are indexed again from the log after a crash.
const checkpointEvery = 1000

// OpenLogWriter opens the log for appending. A line left half-written by a
// crash is cut off, so that the next record starts on a line of its own;
// the records the index of ids has not made durable are indexed.
func OpenLogWriter(path string, durable bool) (*LogWriter, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create log folder: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	w := &LogWriter{file: f, durable: durable}
	if err := w.open(path); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// open finds the log's end and last seq, and brings the index up to it.
func (w *LogWriter) open(path string) error {
	fi, err := w.file.Stat()
	if err != nil {
		return fmt.Errorf("read audit log: %w", err)
	}
	w.lines = &logSeeker{file: w.file, size: fi.Size()}
	end := w.lines.size
	if end > 0 {
		if start, ok := w.lines.lineBefore(end + 1); !ok {
			return errors.New("read audit log: cannot find its last line")
		} else if start < end {
			end = start // a partial last line is dropped
		}
	}
	if err := w.file.Truncate(end); err != nil {
		return fmt.Errorf("cut half-written line from audit log: %w", err)
	}
	if _, err := w.file.Seek(end, io.SeekStart); err != nil {
		return fmt.Errorf("seek audit log: %w", err)
	}
	w.lines.size = end
	w.lastSeq = w.lines.lastSeq()
	w.end, w.synced, w.syncedTo = end, end, w.lastSeq
	if w.ids, err = openIDIndex(IDIndexPath(path), w.durable); err != nil {
		return err
	}
	if !w.indexOfThisLog() {
		if err := w.ids.reset(idInitialSlots); err != nil {
			return err
		}
	}
	for off := w.ids.indexedTo; off < end; {
		rec, next, ok := w.lines.recordAt(off)
		if !ok { // a line damaged by hand is passed over
			_, next, _ = w.lines.headAt(off)
		} else if err := w.ids.add(rec.Message.ID, off); err != nil {
			return err
		}
		if next <= off {
			break
		}
		off = next
	}
	return w.ids.checkpoint(end)
}

// indexOfThisLog reports whether the index is of this log as far as it
// says it indexed it: the log reaches that far, and its last record there
// is in the index where it is.
func (w *LogWriter) indexOfThisLog() bool {
	to := w.ids.indexedTo
	if to > w.end {
		return false
	}
	if to == 0 {
		return true
	}
	start, ok := w.lines.lineBefore(to)
	if !ok {
		return false
	}
	rec, next, ok := w.lines.recordAt(start)
	if !ok || next != to {
		return false // not a record that ends there: the log changed
	}
	at, found, err := w.ids.find(rec.Message.ID, func(off int64) bool { return off == start })
	return err == nil && found && at == start
}

// Routed returns the record of a message already logged, without its
// content, so that a master restarted after a crash finishes its delivery
// instead of routing it twice, and an answer is bound to its request.
func (w *LogWriter) Routed(id string) (Record, bool, error) {
	var rec Record
	_, found, err := w.ids.find(id, func(off int64) bool {
		if off >= w.end {
			return false // a record taken back
		}
		r, _, ok := w.lines.recordAt(off)
		if ok && r.Message.ID == id {
			rec = r
			return true
		}
		return false
	})
	if err != nil {
		return Record{}, false, fmt.Errorf("look up a logged message: %w", err)
	}
	return rec, found, nil
}

// Append numbers rec with the next seq, writes it as one line, and syncs
// the log when durable.
func (w *LogWriter) Append(rec Record) (Record, error) {
	rec, err := w.AppendUnsynced(rec)
	if err != nil {
		return rec, err
	}
	return rec, w.Sync()
}

// Sync makes every appended record durable (when the log is durable). When
// it fails, the records appended since the last Sync are taken back.
func (w *LogWriter) Sync() error {
	if w.broken != nil {
		return w.rollback()
	}
	if w.durable {
		if err := w.Hook.SyncFile(w.file); err != nil {
			err = fmt.Errorf("sync audit log: %w", err)
			return errors.Join(err, w.rollback())
		}
	}
	w.synced, w.syncedTo = w.end, w.lastSeq
	// A checkpoint that fails is tried again at the next Sync: it only
	// means more records to index again at the next open.
	if w.uncheckpointed >= checkpointEvery && w.ids.checkpoint(w.synced) == nil {
		w.uncheckpointed = 0
	}
	return nil
}

// AppendUnsynced is Append for a batch: the caller calls Sync once before
// acting on any of the records. When the write fails, the records appended
// since the last Sync are taken back, and the caller may try the batch
// again.
func (w *LogWriter) AppendUnsynced(rec Record) (Record, error) {
	if rec.Message == nil {
		return rec, errors.New("log record without a message")
	}
	if w.broken != nil {
		if err := w.rollback(); err != nil {
			return rec, err
		}
	}
	rec.Seq = w.lastSeq + 1
	line, err := json.Marshal(rec)
	if err != nil {
		return rec, fmt.Errorf("encode log record: %w", err)
	}
	line = append(line, '\n')
	if _, err := w.file.Write(line); err != nil {
		err = fmt.Errorf("append to audit log: %w", err)
		return rec, errors.Join(err, w.rollback())
	}
	at := w.end
	w.end += int64(len(line))
	w.lines.size = w.end
	w.lastSeq = rec.Seq
	// An entry of a record taken back later points past the log's end, or
	// at another record: it finds nothing.
	if err := w.ids.add(rec.Message.ID, at); err != nil {
		return rec, errors.Join(err, w.rollback())
	}
	w.uncheckpointed++
	return rec, nil
}

// rollback cuts the log back to what the last Sync left and forgets the
// records appended since. Cutting a file frees space, so it works on a full
// disk; should it fail all the same, the log is marked broken and the next
// call tries again.
func (w *LogWriter) rollback() error {
	w.lastSeq, w.end = w.syncedTo, w.synced
	w.lines.size = w.end
	w.broken = nil
	if err := w.file.Truncate(w.synced); err != nil {
		w.broken = fmt.Errorf("take back unsynced audit log records: %w", err)
		return w.broken
	}
	if _, err := w.file.Seek(w.synced, io.SeekStart); err != nil {
		w.broken = fmt.Errorf("take back unsynced audit log records: %w", err)
		return w.broken
	}
	return nil
}

// Close makes the index durable and closes the log.
func (w *LogWriter) Close() error {
	var err error
	if w.ids != nil {
		if w.broken == nil {
			err = w.ids.checkpoint(w.synced)
		}
		err = errors.Join(err, w.ids.Close())
	}
	return errors.Join(err, w.file.Close())
}

// ReadLog reads the complete records of the log from offset on and returns
// the offset after the last complete line. A missing log has no records.
func ReadLog(path string, offset int64) ([]Record, int64, error) {
	var records []Record
	end, err := EachLogRecord(path, offset, func(rec Record) bool {
		records = append(records, rec)
		return true
	})
	return records, end, err
}

// EachLogRecord calls fn with each complete record of the log from offset
// on, in order, until fn returns false, and returns the offset after the
// last line read. A missing log has no records; lines damaged by hand are
// passed over.
func EachLogRecord(path string, offset int64, fn func(Record) bool) (int64, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return offset, nil
	}
	if err != nil {
		return offset, fmt.Errorf("open audit log: %w", err)
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return offset, fmt.Errorf("seek audit log: %w", err)
	}
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return offset, nil
		}
		if err != nil {
			return offset, fmt.Errorf("read audit log: %w", err)
		}
		offset += int64(len(line))
		var rec Record
		if json.Unmarshal(bytes.TrimSpace(line), &rec) != nil || rec.Message == nil {
			continue
		}
		if !fn(rec) {
			return offset, nil
		}
	}
}
