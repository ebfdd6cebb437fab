package console

import (
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"switchboard/desk"
	"switchboard/internal/safetext"
	"switchboard/mailbox"
)

// agentLeft is what the console says while the agent chosen is no longer
// in the team.
func agentLeft(name string) string {
	return name + " is no longer in the team: no agent is chosen; ↑↓ chooses one"
}

// questionLeft is what the console says while the question chosen no
// longer waits.
func questionLeft(key string) string {
	return key + " no longer waits: no question is chosen; ↑↓ chooses one"
}

// chosenAgent is the agent the keys act on; when none is chosen it says
// why, and is "".
func (m *Model) chosenAgent() string {
	switch {
	case m.agent.gone:
		m.said = agentLeft(m.agent.key)
	case m.agent.key == "":
		m.said = "no agent is chosen: the team has none"
	}
	return m.agent.chosen()
}

// key acts on a key press.
func (m *Model) key(k tea.KeyMsg) tea.Cmd {
	if m.prompt != nil {
		return m.promptKey(k)
	}
	if m.checking != "" {
		// A key typed before the question is asked answers nothing.
		switch k.String() {
		case "q", "ctrl+c":
			return tea.Quit
		case "esc":
			m.checking = ""
		}
		return nil
	}
	if m.detail != nil {
		switch k.String() {
		case "esc", "q", "enter":
			m.detail = nil
			return nil
		}
		vp, cmd := m.detail.Update(k)
		m.detail = &vp
		return cmd
	}
	switch k.String() {
	case "q", "ctrl+c":
		return tea.Quit
	case "tab":
		m.focus = (m.focus + 1) % 3
		if m.focus == panelRequests && (m.snap == nil || len(m.snap.Requests) == 0) {
			m.focus = panelLog
		}
	case "shift+tab":
		m.focus = (m.focus + 2) % 3
		if m.focus == panelRequests && (m.snap == nil || len(m.snap.Requests) == 0) {
			m.focus = panelAgents
		}
	case "up", "k":
		m.move(-1)
	case "down", "j":
		m.move(1)
	case "enter":
		m.open()
	case "b":
		m.blockedOnly = !m.blockedOnly
		m.logAt = len(m.logShown()) - 1
	case "f":
		if m.about == "" {
			if m.about = m.chosenAgent(); m.about == "" {
				return nil
			}
		} else {
			m.about = ""
		}
		m.logAt = len(m.logShown()) - 1
	case "a", "d", "A", "N", "r":
		return m.answer(k.String())
	case "i":
		if agent := m.chosenAgent(); agent != "" {
			m.ask("interrupt "+agent+", why", func(reason string) error { return m.cfg.Act.Interrupt(agent, reason) })
		}
	case "c":
		if agent := m.chosenAgent(); agent != "" {
			m.ask("cancel "+agent+" and its helpers, why", func(reason string) error { return m.cfg.Act.Cancel(agent, reason) })
		}
	case "x":
		if agent := m.chosenAgent(); agent != "" {
			return m.checkClose(agent)
		}
	case "g":
		if agent := m.chosenAgent(); agent != "" {
			return func() tea.Msg { return doneMsg{said: "jumped to " + agent + "'s pane", err: m.cfg.Act.Jump(agent)} }
		}
	case "s":
		if agent := m.chosenAgent(); agent != "" {
			m.askMessage(agent)
		}
	}
	return nil
}

// askMessage asks for a message to agent as the web view does, its title
// and then its body, which may be left empty; enter on the body sends both.
func (m *Model) askMessage(agent string) {
	m.askFor("send to "+agent+", title", mailbox.MaxTitleLength, func(title string) tea.Cmd {
		if title == "" {
			m.said = "not sent: a message needs a title"
			return nil
		}
		label := "send to " + agent + ", body (enter for none)"
		m.askFor(label, mailbox.MaxContentSize, func(body string) tea.Cmd {
			return func() tea.Msg {
				return doneMsg{said: "sent to " + agent + ": " + title, err: m.cfg.Act.Send(agent, title, body)}
			}
		})
		// A body is longer than the line: it scrolls in what is left of it.
		m.prompt.input.Width = max(10, m.width-len([]rune(label))-3)
		return nil
	})
}

// checkClose asks whether agent may be closed, before the person is asked
// to confirm it: a close that cannot happen is said at once, unasked.
func (m *Model) checkClose(agent string) tea.Cmd {
	if m.cfg.MayClose == nil {
		m.confirmClose(agent)
		return nil
	}
	m.checking = agent
	return func() tea.Msg { return closeCheckedMsg{agent: agent, err: m.cfg.MayClose(agent)} }
}

// closeChecked asks to confirm the close checked, or says why it cannot
// be; a check the person gave up with esc is dropped.
func (m *Model) closeChecked(msg closeCheckedMsg) {
	if m.checking != msg.agent {
		return
	}
	m.checking = ""
	if msg.err != nil {
		m.said = "cannot close: " + msg.err.Error()
		return
	}
	m.confirmClose(msg.agent)
}

// confirmClose asks for "yes" before it closes agent and its helpers.
func (m *Model) confirmClose(agent string) {
	m.ask("close "+agent+" and its helpers? type yes", func(yes string) error {
		if yes != "yes" {
			return errors.New("not closed: type yes to close")
		}
		return m.cfg.Act.Close(agent)
	})
}

// move moves the focused panel's cursor.
func (m *Model) move(by int) {
	if m.snap == nil {
		return
	}
	switch m.focus {
	case panelAgents:
		m.agent.move(by, agentKeys(m.snap))
	case panelRequests:
		m.request.move(by, requestKeys(m.snap))
	case panelLog:
		m.logAt = clamp(m.logAt+by, len(m.logShown()))
	}
}

// open shows the message under the cursor whole, scrollable.
func (m *Model) open() {
	var rec *mailbox.Record
	switch {
	case m.snap == nil:
		return
	case m.focus == panelLog && len(m.logShown()) > 0:
		r := m.logShown()[m.logAt]
		rec = &r
	case m.focus == panelRequests:
		if r, ok := m.chosenRequest(); ok {
			for i := range m.snap.Log {
				if m.snap.Log[i].Seq == r.Seq {
					rec = &m.snap.Log[i]
				}
			}
		}
	}
	if rec == nil {
		return
	}
	vp := viewport.New(m.width, max(3, m.height-2))
	vp.SetContent(messageText(rec))
	m.detail = &vp
}

// messageText is a logged message in full, for the person.
func messageText(rec *mailbox.Record) string {
	msg := rec.Message
	var b strings.Builder
	fmt.Fprintf(&b, "#%d  %s\n", rec.Seq, safetext.Line(msg.Title))
	fmt.Fprintf(&b, "from %s to %s, %s, %s %s\n", msg.From, strings.Join(msg.To, ", "), rec.Time.In(zone).Format("2006-01-02 15:04:05"), msg.Priority, msg.Type)
	fmt.Fprintf(&b, "routing: %s", rec.Status)
	for _, bl := range rec.Blocked {
		fmt.Fprintf(&b, "; blocked to %s: %s", bl.To, safetext.Line(bl.Reason))
	}
	b.WriteString("\n\n")
	b.WriteString(safetext.Text(msg.Content))
	return b.String()
}

// chosenRequest is the question the keys act on; when none is chosen it
// says why.
func (m *Model) chosenRequest() (desk.OpenRequest, bool) {
	switch {
	case m.snap == nil || len(m.snap.Requests) == 0:
		m.said = "no question waits for you"
	case m.request.gone:
		m.said = questionLeft(m.request.key)
	default:
		return m.snap.Requests[m.request.row], true
	}
	return desk.OpenRequest{}, false
}

// answer answers the question chosen, as the operator.
func (m *Model) answer(key string) tea.Cmd {
	if m.focus != panelRequests {
		return nil
	}
	r, ok := m.chosenRequest()
	if !ok {
		return nil
	}
	if !r.ForOperator() {
		m.said = fmt.Sprintf("#%d waits on %s: the rules give you no answer to it", r.Seq, strings.Join(r.To, ", "))
		return nil
	}
	option := map[string]string{"a": "allow", "d": "deny", "A": "always", "N": "never"}[key]
	if key == "r" || r.Permission == nil {
		m.ask(fmt.Sprintf("answer #%d (%s)", r.Seq, strings.Join(r.Options, ", ")), func(text string) error { return m.cfg.Act.Answer(r.ID, text) })
		return nil
	}
	return func() tea.Msg {
		err := m.cfg.Act.Answer(r.ID, option)
		return doneMsg{said: fmt.Sprintf("answered #%d: %s", r.Seq, option), err: err}
	}
}

// ask opens a prompt of one line; enter runs do with the line typed. The
// agent or question it acts on is bound before it asks: what the snapshots
// do meanwhile does not change it.
func (m *Model) ask(label string, do func(text string) error) {
	m.askFor(label, mailbox.MaxTitleLength, func(text string) tea.Cmd {
		return func() tea.Msg {
			err := do(text)
			return doneMsg{said: label + ": " + text + " — done", err: err}
		}
	})
}

// askFor opens a prompt of at most limit characters; enter hands the line
// typed, trimmed, to then, which may open the next prompt.
func (m *Model) askFor(label string, limit int, then func(text string) tea.Cmd) {
	in := textinput.New()
	in.CharLimit = limit
	// A cursor that blinks is a timer that wakes the console twice a
	// second for as long as the prompt is open.
	in.Cursor.SetMode(cursor.CursorStatic)
	in.Focus()
	m.prompt = &prompt{label: label, input: in, then: then}
}

func (m *Model) promptKey(k tea.KeyMsg) tea.Cmd {
	switch k.String() {
	case "esc":
		m.prompt = nil
		return nil
	case "enter":
		p := m.prompt
		m.prompt = nil
		return p.then(strings.TrimSpace(p.input.Value()))
	}
	in, cmd := m.prompt.input.Update(k)
	m.prompt.input = in
	return cmd
}
