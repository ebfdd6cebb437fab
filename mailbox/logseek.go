package mailbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"time"
)

// A logSeeker finds lines of the audit log by a binary search over its
// bytes: the log is in seq order, and in time order as far as the master's
// clock goes forward, so a record is found in a few short reads whatever
// the log's length. It is not safe for concurrent use.
type logSeeker struct {
	file   *os.File
	size   int64
	reader *bufio.Reader
}

// openLogSeeker opens the log at path as it is now.
func openLogSeeker(path string) (*logSeeker, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &logSeeker{file: f, size: fi.Size()}, nil
}

func (s *logSeeker) Close() error { return s.file.Close() }

// lineHead is what starts each line of the log: {"seq":N,"time":"T",
type lineHead struct {
	Seq  int64
	Time time.Time
}

// searchSpan is the length of log below which the search reads line by line.
const searchSpan = 16 << 10

// first returns where the first line whose head is not before the one
// sought starts (before false), or the log's size when every line is
// before it. before must hold for a prefix of the log's lines and not
// after; lines damaged by hand are passed over.
func (s *logSeeker) first(before func(lineHead) bool) int64 {
	// lo is a line's start, and every line before lo is before the one
	// sought; the first that is not starts in [lo, hi) or at hi.
	lo, hi := int64(0), s.size
	for hi-lo > searchSpan {
		mid := lo + (hi-lo)/2
		start, ok := s.lineStart(mid)
		if !ok || start >= hi {
			hi = mid
			continue
		}
		h, next, ok := s.headAt(start)
		for !ok && next < hi { // past lines damaged by hand
			start = next
			h, next, ok = s.headAt(start)
		}
		switch {
		case !ok:
			hi = mid
		case before(h):
			lo = next
		default:
			hi = start
		}
	}
	for off := lo; off < s.size; {
		h, next, ok := s.headAt(off)
		if ok && !before(h) || next <= off {
			return off
		}
		off = next
	}
	return s.size
}

// lastSeq is the seq of the log's last complete record, or 0 for a log
// without one.
func (s *logSeeker) lastSeq() int64 {
	end := s.size // the end of the line looked at
	for end > 0 {
		start, ok := s.lineBefore(end)
		if !ok {
			return 0
		}
		if h, next, ok := s.headAt(start); ok && next == end {
			return h.Seq
		}
		end = start
	}
	return 0
}

// lineBefore returns where the line that ends at end starts.
func (s *logSeeker) lineBefore(end int64) (int64, bool) {
	buf := make([]byte, 64<<10)
	pos := end - 1 // the line's own newline is not its start
	for pos > 0 {
		n := min(int64(len(buf)), pos)
		if _, err := s.file.ReadAt(buf[:n], pos-n); err != nil {
			return 0, false
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return pos - n + int64(i) + 1, true
		}
		pos -= n
	}
	return 0, true
}

// lineStart returns where the first line starting at or after off starts.
func (s *logSeeker) lineStart(off int64) (int64, bool) {
	if off == 0 {
		return 0, true
	}
	skipped, err := skipLine(s.readAt(off - 1))
	if err != nil {
		return 0, false
	}
	return off - 1 + skipped, true
}

// headAt reads the head of the line at off and returns where the next line
// starts; ok is false for a line that does not start so, or has no end.
func (s *logSeeker) headAt(off int64) (h lineHead, next int64, ok bool) {
	r := s.readAt(off)
	head, _ := r.Peek(96)
	if rest, found := bytes.CutPrefix(head, []byte(`{"seq":`)); found {
		if end := bytes.IndexAny(rest, ",}"); end > 0 {
			n, err := strconv.ParseInt(string(rest[:end]), 10, 64)
			h.Seq, ok = n, err == nil
			if t, found := bytes.CutPrefix(rest[end+1:], []byte(`"time":"`)); found {
				if q := bytes.IndexByte(t, '"'); q > 0 {
					h.Time, _ = time.Parse(time.RFC3339Nano, string(t[:q]))
				}
			}
		}
	}
	skipped, err := skipLine(r)
	if err != nil {
		return lineHead{}, s.size, false // a last line cut short is not a record
	}
	return h, off + skipped, ok
}

// recordAt decodes the record whose line starts at off, without its
// message's content (the message holds its id and sender alone), and
// returns where the next line starts.
func (s *logSeeker) recordAt(off int64) (rec Record, next int64, ok bool) {
	line, err := s.readAt(off).ReadBytes('\n')
	if err != nil {
		return Record{}, 0, false
	}
	var slim struct {
		Record
		Message *struct {
			ID   string `json:"id"`
			From string `json:"from"`
			// Permission is kept for a prompt passed up, which must ask
			// what the prompt it names asks (Record.PermissionPrompt).
			Permission json.RawMessage `json:"permission"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &slim) != nil || slim.Message == nil {
		return Record{}, 0, false
	}
	rec = slim.Record
	rec.Message = &Message{ID: slim.Message.ID, From: slim.Message.From}
	if slim.Message.Permission != nil {
		rec.Message.Extra = map[string]json.RawMessage{fieldPermission: slim.Message.Permission}
	}
	return rec, off + int64(len(line)), true
}

// readAt returns the seeker's reader, reading the log from off.
func (s *logSeeker) readAt(off int64) *bufio.Reader {
	section := io.NewSectionReader(s.file, off, s.size-off)
	if s.reader == nil {
		s.reader = bufio.NewReaderSize(section, 4096)
	} else {
		s.reader.Reset(section)
	}
	return s.reader
}

// skipLine reads through the next newline and returns how many bytes that
// took.
func skipLine(r *bufio.Reader) (int64, error) {
	var n int64
	for {
		chunk, err := r.ReadSlice('\n')
		n += int64(len(chunk))
		if err == nil {
			return n, nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return n, err
		}
	}
}

// LogPlace is where a reading of the log starts, found without reading
// what comes before it.
type LogPlace struct {
	// Offset is where the first record sought starts (the log's size when
	// there is none).
	Offset int64
	// LastSeq is the seq of the log's last record, 0 when it has none.
	LastSeq int64
}

// SeekLogSeq finds the record numbered seq, or the first after it. A
// missing log is an empty one.
func SeekLogSeq(path string, seq int64) (LogPlace, error) {
	return seekLog(path, func(h lineHead) bool { return h.Seq < seq })
}

// SeekLogTime finds the first record logged at or after t.
func SeekLogTime(path string, t time.Time) (LogPlace, error) {
	return seekLog(path, func(h lineHead) bool { return h.Time.Before(t) })
}

func seekLog(path string, before func(lineHead) bool) (LogPlace, error) {
	s, err := openLogSeeker(path)
	if errors.Is(err, fs.ErrNotExist) {
		return LogPlace{}, nil
	}
	if err != nil {
		return LogPlace{}, fmt.Errorf("open audit log: %w", err)
	}
	defer s.Close()
	return LogPlace{Offset: s.first(before), LastSeq: s.lastSeq()}, nil
}
