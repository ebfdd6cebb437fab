package master

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"switchboard/mailbox"
)

func notice(to, key, title, content string, at time.Time) *mailbox.Message {
	return &mailbox.Message{
		ID:          mailbox.NoticeID(key),
		Timestamp:   at,
		DeliveredAt: at,
		From:        mailbox.System,
		To:          []string{to},
		Title:       mailbox.ClipTitle(title),
		Priority:    mailbox.PriorityNormal,
		Type:        mailbox.TypeNotification,
		Content:     content,
	}
}

// tellOverseers delivers a notice from switchboard to every overseer (the
// operator when the rules name none), the same key giving the same notice
// again, and returns those told now.
func (m *Master) tellOverseers(key, title, content string, at time.Time) (told []string) {
	return m.tell(m.overseersHere(), key, title, content, at)
}

// tell delivers a notice from switchboard to each of to, the same key
// giving the same notice again, and returns those told now.
func (m *Master) tell(recipients []string, key, title, content string, at time.Time) (told []string) {
	for _, to := range recipients {
		n := notice(to, key, title, content, at)
		err := m.store.VouchNotice(to, n)
		delivered := false
		if err == nil {
			delivered, err = m.store.Deliver(to, n)
		}
		if err != nil {
			m.logf("cannot tell %s %q: %v", to, n.Title, err)
			m.noteFull(err)
			continue
		}
		if delivered {
			m.noteWritten(to, n)
			told = append(told, to)
		}
	}
	return told
}

// overseersHere are the overseers this master can tell: in a team across
// machines, those of this host, or the person at it when they all run
// elsewhere (a notice of the master's own does not cross the hop).
func (m *Master) overseersHere() []string {
	all := m.shared.Load().Overseers()
	if m.link == nil {
		return all
	}
	here := slices.DeleteFunc(slices.Clone(all), m.remote)
	if len(here) == 0 {
		return []string{mailbox.Operator}
	}
	return here
}

// blockedNotice tells the sender which recipients the rules kept its message
// from, and why.
func blockedNotice(msg *mailbox.Message, rec mailbox.Record) *mailbox.Message {
	var to []string
	var why strings.Builder
	fmt.Fprintf(&why, "Your message #%d %q was not delivered to:\n", rec.Seq, msg.Title)
	for _, b := range rec.Blocked {
		to = append(to, b.To)
		fmt.Fprintf(&why, "  %s: %s\n", b.To, b.Reason)
	}
	fmt.Fprintf(&why, "\nSee who you may write to with `switchboard rules explain %s AGENT`.\n", msg.From)
	n := notice(msg.From, mailbox.BlockedNoticeKey(msg.ID), fmt.Sprintf("BLOCKED: %s → %s", msg.From, strings.Join(to, ", ")), why.String(), rec.Time)
	n.InReplyTo, n.CorrelationID = msg.ID, msg.CorrelationID
	if len(rec.Blocked) == 1 {
		n.Title = mailbox.ClipTitle(fmt.Sprintf("BLOCKED: %s → %s: %s", msg.From, to[0], rec.Blocked[0].Reason))
	}
	return n
}

// reject moves a file out of the outbox into rejected/, writes the reason
// beside it in <name>.error, and tells the sender. The notice is delivered
// before the move, so a crash in between repeats the notice under the same
// name rather than losing it. It reports whether the file was moved.
func (m *Master) reject(agent, path, reason string) (moved bool) {
	// rejected/ may have been made a link since the last pass looked: the
	// reason and the file go nowhere a link points.
	if m.unlink(agent) != nil {
		return false
	}
	r, err := m.store.Reject(agent, path, reason)
	if errors.Is(err, fs.ErrNotExist) {
		return false // gone meanwhile
	}
	if err != nil {
		m.logf("cannot reject %s: %v", path, err)
		m.noteFull(err)
		return false
	}
	key := fmt.Sprintf("rejected/%s/%s/%d/%d", agent, r.Name, r.Size, r.ModTime.UnixNano())
	content := fmt.Sprintf("Your message file %s was rejected:\n  %s\n\nIt is kept in %s, with the reason in %s.error.\nFix it and send it again, for example with `switchboard send --to AGENT --title TITLE`.\n",
		r.Name, reason, r.Path, filepath.Base(r.Path))
	n := notice(agent, key, fmt.Sprintf("REJECTED: %s: %s", shortName(r.Name), reason), content, r.ModTime.UTC())
	err = m.store.VouchNotice(agent, n)
	if err == nil {
		var delivered bool
		if delivered, err = m.store.Deliver(agent, n); delivered {
			m.noteWritten(agent, n)
		}
	}
	if err != nil {
		m.logf("cannot tell %s of a rejection: %v", agent, err)
		m.noteFull(err)
		return false
	}
	if err := r.Finish(); err != nil {
		m.logf("cannot move %s to rejected/: %v", path, err)
		return false
	}
	m.logf("rejected %s from %s: %s", r.Name, agent, reason)
	return true
}

// shortName is a file name cut to leave room for the reason in a title.
func shortName(name string) string {
	if r := []rune(name); len(r) > 48 {
		return string(r[:40]) + "…" + string(r[len(r)-7:])
	}
	return name
}
