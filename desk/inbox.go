package desk

import (
	"fmt"
	"time"

	"switchboard/internal/safetext"
	"switchboard/mailbox"
)

// Item is one message of an inbox, as a listing shows it.
type Item struct {
	ID       string    `json:"id"`
	Seq      int64     `json:"seq,omitempty"`
	Time     time.Time `json:"time"`
	Priority string    `json:"priority"`
	Type     string    `json:"type"`
	From     string    `json:"from"`
	Title    string    `json:"title"`
	Read     bool      `json:"read"`
	// Unverified marks a file no record of the master vouches for:
	// written into the inbox by hand, its sender and content unproven.
	Unverified bool `json:"unverified"`
}

// Inbox lists the agent's unread messages (all of them, read ones too,
// with all), oldest first. Files that cannot be read as messages are left
// out, each said in skipped.
func (d *Desk) Inbox(all bool) (items []Item, skipped []string, err error) {
	box := mailbox.Unread
	if all {
		box = mailbox.All
	}
	entries, err := d.store().List(d.agent, box)
	if err != nil {
		return nil, nil, err
	}
	v := d.store().NewVoucher()
	defer v.Close()
	items = make([]Item, 0, len(entries))
	for _, e := range entries {
		m, err := mailbox.Load(e.Path)
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%s: %v", safetext.Line(e.Name), err))
			continue
		}
		items = append(items, Item{
			ID: m.ID, Seq: m.Seq, Time: e.Time, Priority: e.Priority, Type: m.Type, From: m.From,
			Title: m.Title, Read: e.Read, Unverified: !v.Vouches(d.agent, e.Name, m),
		})
	}
	return items, skipped, nil
}
