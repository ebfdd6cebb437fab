package desk

import (
	"errors"
	"slices"

	"switchboard/mailbox"
)

// ErrNoUnread is returned by Read for the next message when none is
// unread.
var ErrNoUnread = errors.New("no unread messages")

// Letter is a message read, with its place and whether a record of the
// master vouches for it.
type Letter struct {
	Entry      mailbox.Entry
	Message    *mailbox.Message
	Unverified bool
}

// Read returns the message whose id (or unique id prefix) is given, or the
// next unread one when id is "": urgent first, then normal, then low, each
// oldest first, and files no record vouches for after the rest. Unless
// peek, the message is marked read.
func (d *Desk) Read(id string, peek bool) (Letter, error) {
	v := d.store().NewVoucher()
	defer v.Close()
	var l Letter
	if id == "" {
		unread, err := d.store().List(d.agent, mailbox.Unread)
		if err != nil {
			return Letter{}, err
		}
		if len(unread) == 0 {
			return Letter{}, ErrNoUnread
		}
		if l, err = nextToRead(v, d.agent, unread); err != nil {
			return Letter{}, err
		}
	} else {
		e, err := d.store().Find(d.agent, id)
		if err != nil {
			return Letter{}, err
		}
		m, err := mailbox.Load(e.Path)
		if err != nil {
			return Letter{}, err
		}
		l = Letter{Entry: e, Message: m, Unverified: !v.Vouches(d.agent, e.Name, m)}
	}
	if !peek {
		if _, err := d.store().MarkRead(d.agent, l.Entry); err != nil {
			return Letter{}, err
		}
	}
	return l, nil
}

// nextToRead picks the next unread message (see Read).
func nextToRead(v *mailbox.Voucher, agent string, unread []mailbox.Entry) (Letter, error) {
	slices.SortStableFunc(unread, func(a, b mailbox.Entry) int {
		if d := priorityRank(a.Priority) - priorityRank(b.Priority); d != 0 {
			return d
		}
		return a.Time.Compare(b.Time)
	})
	var first *Letter
	var lastErr error
	for _, e := range unread {
		m, err := mailbox.Load(e.Path)
		if err != nil {
			lastErr = err
			continue
		}
		if v.Vouches(agent, e.Name, m) {
			return Letter{Entry: e, Message: m}, nil
		}
		if first == nil {
			first = &Letter{Entry: e, Message: m, Unverified: true}
		}
	}
	if first == nil {
		return Letter{}, lastErr
	}
	return *first, nil
}

// priorityRank orders priorities most pressing first; one the file name
// does not know comes last.
func priorityRank(p string) int {
	if i := slices.Index(mailbox.Priorities(), p); i >= 0 {
		return i
	}
	return len(mailbox.Priorities())
}
