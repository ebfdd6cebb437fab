package clientinbox

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
)

// Transcript is a session's record of its conversation, one JSON object a
// line, which the client appends to as the conversation goes.
type Transcript struct{ Path string }

// End is where the transcript ends now: what is written after it is new.
func (t Transcript) End() int64 {
	info, err := os.Stat(t.Path)
	if err != nil {
		return 0
	}
	return info.Size()
}

// Holds reports whether a line the session wrote after from records a
// message from another session (its origin a peer) in which every one of
// marks appears: the client put it into the conversation.
func (t Transcript) Holds(from int64, marks []string) (bool, error) {
	f, err := os.Open(t.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return false, err
	}
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if peerMessage(line) && holdsAll(line, marks) {
			return true, nil
		}
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
}

// peerMessage reports whether a transcript line puts a message from
// another session into the conversation: a user message of its own when it
// started a turn, or one attached to the next request of a turn that ran
// (a queued command absorbed mid-turn). The queue's own bookkeeping lines
// name no origin.
func peerMessage(line []byte) bool {
	return bytes.Contains(line, []byte(`"kind":"peer"`)) &&
		(bytes.Contains(line, []byte(`"type":"user"`)) || bytes.Contains(line, []byte(`"type":"queued_command"`)))
}

func holdsAll(line []byte, marks []string) bool {
	for _, m := range marks {
		if !bytes.Contains(line, []byte(m)) {
			return false
		}
	}
	return true
}
