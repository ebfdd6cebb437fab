package bench

import (
	"context"
	"os"
	"slices"
	"strings"
	"time"

	"switchboard/internal/watch"
	"switchboard/mailbox"
)

// check waits until every outbox is empty and the log still, then checks
// the promises against the log and every mailbox.
func (s *soak) check(ctx context.Context) error {
	store := mailbox.NewStore(s.team.root)
	agents := s.mailboxes()
	left := func() int {
		n := 0
		for _, a := range agents {
			names, _ := store.Pending(a)
			n += len(names)
		}
		return n
	}
	watch.Until(ctx, 100*time.Millisecond, 2*time.Minute, func() bool { return left() == 0 })
	if err := watch.Sleep(ctx, 3*time.Second); err != nil { // the last records and copies
		return err
	}
	s.res.LeftInOutbox = left()

	records := make(map[string]int)
	delivered := make(map[string][]string) // id → its recipients, by the log
	forbidden := make(map[string]bool)
	if _, err := mailbox.EachLogRecord(store.LogPath(), 0, func(rec mailbox.Record) bool {
		if rec.Message.From == mailbox.System {
			return true
		}
		records[rec.Message.ID]++
		delivered[rec.Message.ID] = rec.Delivered
		if rec.Message.From == soakForbiddenFrom && slices.Contains(rec.Delivered, soakForbiddenTo) {
			forbidden[rec.Message.ID] = true
		}
		return true
	}); err != nil {
		return err
	}
	for _, id := range s.posted {
		switch records[id] {
		case 0:
			s.res.NotLogged++
		case 1:
			s.res.Logged++
		default:
			s.res.LoggedTwice++
		}
	}
	s.res.ForbiddenDelivered = len(forbidden)
	copies := make(map[string]int) // agent/id → copies in its inbox and read folder
	for _, a := range agents {
		for _, dir := range []string{store.InboxDir(a), store.ReadDir(a)} {
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if info, ok := mailbox.ParseFileName(e.Name()); ok {
					copies[a+"/"+info.ID]++
				}
			}
		}
	}
	for _, id := range s.posted {
		for _, to := range delivered[id] {
			switch copies[to+"/"+id] {
			case 0:
				s.res.CopiesMissing++
			case 1:
				s.res.Copies++
			default:
				s.res.CopiesTwice++
			}
		}
	}
	return nil
}

// mailboxes are the agents with a mailbox: the team and its helpers.
func (s *soak) mailboxes() []string {
	entries, _ := os.ReadDir(mailbox.NewStore(s.team.root).Dir)
	var out []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "log" && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out
}
