package mailbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// RepliesTo lists the ids of the replies agent has sent to the message id,
// posted or routed already, but for those the rules kept from every
// recipient (the master's BLOCKED notice about them is in agent's inbox):
// they answered no one. Only files named as posted at since or later are
// opened: a reply comes after its message.
func (s *Store) RepliesTo(agent, id string, since time.Time) ([]string, error) {
	var ids []string
	for _, dir := range []string{s.OutboxDir(agent), s.SentDir(agent)} {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			info, ok := ParseFileName(e.Name())
			if !ok || info.Time.Before(since) {
				continue
			}
			m, err := Load(filepath.Join(dir, e.Name()))
			if err != nil {
				continue // moved meanwhile, or not a message: not a reply
			}
			if m.InReplyTo != id {
				continue
			}
			if _, err := s.Find(agent, NoticeID(BlockedNoticeKey(m.ID))); err == nil {
				continue // blocked: it reached no one
			}
			ids = append(ids, m.ID)
		}
	}
	return ids, nil
}
