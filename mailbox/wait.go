package mailbox

import (
	"context"
	"errors"
	"io/fs"
	"time"

	"switchboard/internal/watch"
)

// rescanEvery bounds how long a delivery can go unnoticed by WaitFor when
// the folder cannot be watched (no inotify, or the folder not made yet).
const rescanEvery = time.Second

// WaitFor waits until a message in the agent's unread inbox satisfies match,
// and returns it with its entry; it leaves every other message where it is,
// and takes no file that no record vouches for (Voucher). match is given the
// message and the record that vouches for it (empty for the master's own
// notices).
// It watches the inbox folder and looks again at each change (every second
// where the folder cannot be watched), so that a wait at rest runs no
// timer. It returns ctx's error when ctx ends first.
func (s *Store) WaitFor(ctx context.Context, agent string, match func(*Message, Record) bool) (Entry, *Message, error) {
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
			if err != nil {
				continue
			}
			if rec, ok := v.Record(agent, e.Name, m); ok && match(m, rec) {
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

// WaitForAnswer waits in agent's unread inbox for the answer to its request
// (by id) from answerer: a response that names the request, sent by
// answerer or the operator, whose record says that it answers the request
// (Record.Answers: the master found the request delivered to its sender).
// A response from anyone else, or to another message with the same
// correlation id, is ordinary mail and stays unread.
func (s *Store) WaitForAnswer(ctx context.Context, agent, request, answerer string) (Entry, *Message, error) {
	return s.WaitFor(ctx, agent, func(m *Message, rec Record) bool {
		return IsAnswer(m, rec, request, answerer)
	})
}

// IsAnswer reports whether m, vouched for by rec, is the answer to the
// request from answerer (or the operator, who may answer any request).
func IsAnswer(m *Message, rec Record, request, answerer string) bool {
	return m.Type == TypeResponse && m.InReplyTo == request && rec.Answers == request &&
		(m.From == answerer || m.From == Operator)
}
