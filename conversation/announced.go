package conversation

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"switchboard/internal/jsonl"
)

// Channels by which a logged message reached its recipient's conversation.
const (
	// ChannelInbox: handed to the client's own inbox (Claude Code's), which
	// put it into the conversation between two tool calls or as a turn.
	ChannelInbox = "inbox"
	// ChannelTyped: a notice typed into the pane as the prompt.
	ChannelTyped = "typed"
	// ChannelInterrupt: ESC, then a notice typed.
	ChannelInterrupt = "interrupt"
	// ChannelScreen: shown on a shell agent's screen, never typed.
	ChannelScreen = "screen"
)

// Announcement says how the master announced a logged message to one
// recipient: kept beside the log, by seq. A message with none was not
// announced (low priority, or read first) and reached the agent through
// its hooks, or has not yet.
type Announcement struct {
	Seq     int64     `json:"seq"`
	To      string    `json:"to"`
	Channel string    `json:"channel"`
	Time    time.Time `json:"time"`
}

// RecordAnnouncements appends to the record, in one write to a file
// opened for appending. It is not synced: it says how mail was announced,
// which a crash loses no mail by forgetting.
func (b *Book) RecordAnnouncements(list ...Announcement) error {
	if len(list) == 0 {
		return nil
	}
	values := make([]any, len(list))
	for i, a := range list {
		values[i] = a
	}
	if err := jsonl.AppendAll(b.announcedPath(), values, false); err != nil {
		return fmt.Errorf("record announcements: %w", err)
	}
	return nil
}

// Announcements reads the record, by seq; lines it cannot read are skipped.
func (b *Book) Announcements() (map[int64][]Announcement, error) {
	f, err := os.Open(b.announcedPath())
	if errors.Is(err, fs.ErrNotExist) {
		return map[int64][]Announcement{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read announcements: %w", err)
	}
	defer f.Close()
	out := make(map[int64][]Announcement)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	for sc.Scan() {
		var a Announcement
		if json.Unmarshal(sc.Bytes(), &a) == nil && a.Seq > 0 {
			out[a.Seq] = append(out[a.Seq], a)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read announcements: %w", err)
	}
	return out, nil
}
