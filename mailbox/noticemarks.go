package mailbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// noticeChunk is how much of the record of notices is read at a time.
const noticeChunk = 64 << 10

// noticeMarks finds marks in the record of notices from its end back, a
// chunk at a time, keeping what it read: the notices in an inbox are
// mostly recent, so a reader seldom reads far, however long the record.
// It sees the record as it was when first asked.
type noticeMarks struct {
	f     *os.File
	pos   int64                   // what is before pos is not read yet
	carry []byte                  // the end of a line whose start is before pos
	marks map[string][]NoticeMark // every mark of a key: a notice sent again has its id
	err   error                   // the record could not be read: no mark is found
}

func (s *Store) openNoticeMarks() *noticeMarks {
	n := &noticeMarks{marks: make(map[string][]NoticeMark)}
	f, err := os.Open(s.NoticesPath())
	if errors.Is(err, fs.ErrNotExist) {
		return n
	}
	if err == nil {
		var info os.FileInfo
		if info, err = f.Stat(); err == nil {
			n.f, n.pos = f, info.Size()
			return n
		}
		f.Close()
	}
	n.err = fmt.Errorf("read notice marks: %w", err)
	return n
}

// vouches reports whether a mark of the notice id to agent vouches for
// the file name holding m: the record is read back until one does, or to
// its start.
func (n *noticeMarks) vouches(agent, name string, m *Message) bool {
	_, ok := n.find(agent, name, m)
	return ok
}

// find returns the mark that vouches for the file name in agent's
// mailbox, holding m.
func (n *noticeMarks) find(agent, name string, m *Message) (NoticeMark, bool) {
	key := NoticeKey(m.ID, agent)
	seen := 0
	for {
		for _, mark := range n.marks[key][seen:] {
			if mark.Vouches(agent, name, m) {
				return mark, true
			}
		}
		seen = len(n.marks[key])
		if n.f == nil || n.err != nil || !n.readBack() {
			return NoticeMark{}, false
		}
	}
}

// readBack reads the chunk before pos; false when there is none left.
func (n *noticeMarks) readBack() bool {
	if n.pos == 0 {
		return false
	}
	start := max(n.pos-noticeChunk, 0)
	chunk := make([]byte, n.pos-start, n.pos-start+int64(len(n.carry)))
	if _, err := n.f.ReadAt(chunk, start); err != nil {
		n.err = fmt.Errorf("read notice marks: %w", err)
		return false
	}
	data := append(chunk, n.carry...)
	n.pos, n.carry = start, nil
	if start > 0 {
		// The chunk's first line may start before it.
		cut := bytes.IndexByte(data, '\n')
		if cut < 0 {
			n.carry = data
			return true
		}
		n.carry, data = bytes.Clone(data[:cut+1]), data[cut+1:]
	}
	for line := range bytes.Lines(data) {
		var mark NoticeMark
		if json.Unmarshal(line, &mark) == nil {
			key := NoticeKey(mark.ID, mark.To)
			n.marks[key] = append(n.marks[key], mark)
		}
	}
	return true
}

func (n *noticeMarks) close() error {
	if n.f != nil {
		return n.f.Close()
	}
	return nil
}
