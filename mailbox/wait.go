package mailbox

import (
	"context"
	"errors"
	"io/fs"
	"time"

	"switchboard/watch"
)

// rescanEvery bounds how long a delivery can go unnoticed by WaitFor when
// the folder's events are lost or cannot be watched at all.
const rescanEvery = time.Second

// WaitFor waits until a message in the agent's unread inbox satisfies match,
// and returns it with its entry; it leaves every other message where it is,
// and takes no file that no record vouches for (Voucher).
// It watches the inbox folder and looks again at least every second, so it
// works where events are lost too. It returns ctx's error when ctx ends
// first.
func (s *Store) WaitFor(ctx context.Context, agent string, match func(*Message) bool) (Entry, *Message, error) {
	changed := watch.NewFolders(rescanEvery, s.InboxDir(agent))
	defer changed.Close()
	checked := make(map[string]bool) // delivered files never change: each is read once
	for {
		entries, err := s.List(agent, Unread)
		if err != nil {
			return Entry{}, nil, err
		}
		v := s.NewVoucher() // the log as it is now, new records included
		for _, e := range entries {
			if checked[e.Name] {
				continue
			}
			m, err := Load(e.Path)
			if errors.Is(err, fs.ErrNotExist) {
				continue // read meanwhile by someone else
			}
			checked[e.Name] = true
			if err == nil && match(m) && v.Vouches(agent, e.Name, m) {
				v.Close()
				return e, m, nil
			}
		}
		v.Close()
		select {
		case <-ctx.Done():
			return Entry{}, nil, ctx.Err()
		case <-changed.C:
		}
	}
}
