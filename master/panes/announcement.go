package panes

import (
	"fmt"
	"strings"

	"switchboard/conversation"
	"switchboard/internal/tmux"
	"switchboard/mailbox"
)

// announcement is a delivered message waiting to be announced in its
// recipient's pane.
type announcement struct {
	seq       int64
	id        string
	from      string
	title     string
	file      string // the delivered file's name, to see whether it is still unread
	interrupt bool
}

// maxNoticeLength keeps a merged notice well under the size at which agent
// TUIs collapse a paste into a placeholder.
const maxNoticeLength = 600

// noticeLine is the one line typed for a list of announcements:
// "[FROM: Developer Agent] <title> (switchboard read <id>)", merged with
// " | " and cut to "and N more" when long.
func noticeLine(items []announcement, displayName func(string) string) string {
	var b strings.Builder
	for i, a := range items {
		part := fmt.Sprintf("[FROM: %s] %s (switchboard read %s)", displayName(a.from), tmux.Sanitize(a.title), a.id)
		if i > 0 {
			if b.Len()+3+len(part) > maxNoticeLength {
				fmt.Fprintf(&b, " | and %d more: switchboard inbox", len(items)-i)
				break
			}
			b.WriteString(" | ")
		}
		b.WriteString(part)
	}
	return b.String()
}

func interruptLine(a announcement, displayName func(string) string) string {
	return fmt.Sprintf("[INTERRUPT] [FROM: %s] %s (switchboard read %s)", displayName(a.from), tmux.Sanitize(a.title), a.id)
}

// record notes in the record beside the log how the announcements of
// logged messages reached agent; switchboard's own notices are not logged.
func (p *Panes) record(agent, channel string, items []announcement) {
	at := p.now().UTC()
	var list []conversation.Announcement
	for _, a := range items {
		if a.seq > 0 {
			list = append(list, conversation.Announcement{Seq: a.seq, To: agent, Channel: channel, Time: at})
		}
	}
	if err := p.book.RecordAnnouncements(list...); err != nil {
		p.logf("cannot record how %s was told: %v", agent, err)
	}
}

// typedPriority reports whether a message's priority is announced by typing.
func typedPriority(priority string) bool {
	return priority == mailbox.PriorityNormal || priority == mailbox.PriorityUrgent
}
