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

// Progress is what a transcript says of messages sent, each found by a
// mark that appears in it (its id).
type Progress struct {
	// Queued: the client took it into the queue of what it hands its model.
	Queued map[string]bool
	// Held: the client put it into the conversation, as a turn of its own
	// or attached to the next request of a turn that ran.
	Held map[string]bool
}

// Follow reads the whole lines written at or after *from, notes in p what
// they say of each mark, and moves *from past them: the next call reads
// only what was written since.
func (t Transcript) Follow(from *int64, marks []string, p *Progress) error {
	f, err := os.Open(t.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Seek(*from, io.SeekStart); err != nil {
		return err
	}
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			return nil // a line not ended yet is read whole next time
		}
		if err != nil {
			return err
		}
		*from += int64(len(line))
		queued, held := enqueued(line), peerMessage(line)
		if !queued && !held {
			continue
		}
		for _, m := range marks {
			if !bytes.Contains(line, []byte(m)) {
				continue
			}
			if queued {
				p.Queued = setMark(p.Queued, m)
			}
			if held {
				p.Held = setMark(p.Held, m)
			}
		}
	}
}

func setMark(set map[string]bool, mark string) map[string]bool {
	if set == nil {
		set = make(map[string]bool)
	}
	set[mark] = true
	return set
}

// Holds reports whether the transcript, after from, holds in the
// conversation a message from another session that carries every mark.
func (t Transcript) Holds(from int64, marks []string) (bool, error) {
	var p Progress
	err := t.Follow(&from, marks, &p)
	for _, m := range marks {
		if !p.Held[m] {
			return false, err
		}
	}
	return true, err
}

// enqueued reports whether a transcript line records the client taking a
// message into its queue.
func enqueued(line []byte) bool {
	return bytes.Contains(line, []byte(`"type":"queue-operation"`)) && bytes.Contains(line, []byte(`"operation":"enqueue"`))
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
