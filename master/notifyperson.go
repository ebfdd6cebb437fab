package master

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"switchboard/internal/notify"
	"switchboard/mailbox"
)

// maxNotified bounds the keys of events the person was told of, which keep
// an event from being told twice.
const maxNotified = 4096

// notifyPerson tells the person, wherever they are, of what needs them,
// once an event (key), by the command or endpoint the workspace's
// notify.yaml names; nothing when it names none. It never holds up the
// master: the notifier runs on its own, and a failure is said in the log.
func (m *Master) notifyPerson(key, title, text string) {
	n, ok, err := notify.Load(filepath.Join(m.ws.Root, notify.File))
	if err != nil {
		m.logf("cannot tell the person of %q: %v", title, err)
		return
	}
	if !ok {
		return
	}
	m.notifiedMu.Lock()
	if m.notified[key] {
		m.notifiedMu.Unlock()
		return
	}
	if len(m.notified) >= maxNotified {
		clear(m.notified)
	}
	m.notified[key] = true
	m.notifiedMu.Unlock()
	title = mailbox.ClipTitle(title) // one line: a header, an argument
	go func() {
		if err := n.Send(context.Background(), title, text); err != nil {
			m.logf("cannot tell the person of %q: %v", title, err)
		}
	}()
}

// needsPerson tells the person of a message delivered to them that waits
// for their answer: a permission prompt, or a question.
func (m *Master) needsPerson(to string, msg *mailbox.Message, permission bool) {
	if to != mailbox.Operator || (!permission && !msg.RequiresResponse) {
		return
	}
	what := "QUESTION"
	if permission {
		what = "PERMISSION"
	}
	text := fmt.Sprintf("%s asks: %s\n\nRead it with: switchboard read %s\nAnswer it with: switchboard reply %s --content \"...\"", msg.From, msg.Title, msg.ID, msg.ID)
	m.notifyPerson("ask/"+msg.ID, fmt.Sprintf("%s from %s: %s", what, msg.From, msg.Title), text)
}

// onLoop runs do in the master's loop, which owns what telling touches:
// the panes' goroutines hand their news over this way. It never blocks a
// pane's goroutine for long: when the loop is far behind, the news is
// said in the log instead.
func (m *Master) onLoop(what string, do func()) {
	select {
	case m.fromPanes <- do:
	case <-time.After(5 * time.Second):
		m.logf("the master is busy: %s was not told", what)
	}
}
