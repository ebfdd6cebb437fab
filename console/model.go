package console

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"switchboard/internal/safetext"
	"switchboard/mailbox"
)

// Actions are what the console does, as the operator: each one verb of the
// desk, so that the rules decide as they do for the commands and the tools.
type Actions interface {
	Answer(id, option string) error
	Interrupt(agent, reason string) error
	Cancel(agent, reason string) error
	Close(agent string) error
	Send(to, title string) error
	// Jump shows the agent's pane, when the console runs in the team's
	// tmux.
	Jump(agent string) error
}

// Config is what a console needs: how to take a snapshot, what to act
// with, when to look again, and how to ring.
type Config struct {
	Read    func(ctx context.Context) (*Snapshot, error)
	Act     Actions
	Changes <-chan struct{} // a value each time the team may have changed
	// Ring tells the person, outside the console too, that an agent needs
	// them; nil rings nowhere.
	Ring func(text string)
}

// panel is a part of the screen the keys act on.
type panel int

const (
	panelAgents panel = iota
	panelRequests
	panelLog
)

// Model is the console: the last snapshot and where the person is in it.
type Model struct {
	cfg    Config
	snap   *Snapshot
	err    error
	width  int
	height int
	focus  panel
	// The cursors, by position in what each panel shows.
	agent, request, logAt int
	blockedOnly           bool
	about                 string // the log shows this agent's messages alone, when set
	prompt                *prompt
	detail                *viewport.Model
	said                  string    // what the last action did
	lastRead              time.Time // when the last look for a change was taken, or is due
}

// lookGap is the least time between two looks for changes: a team busy
// with mail changes many times a second.
const lookGap = 500 * time.Millisecond

// prompt is a line asked of the person before an action.
type prompt struct {
	label string
	input textinput.Model
	then  func(text string) tea.Cmd
}

// New returns the console configured by cfg.
func New(cfg Config) *Model { return &Model{cfg: cfg, width: 120, height: 40, logAt: -1} }

// The console's messages.
type (
	snapshotMsg struct {
		snap *Snapshot
		err  error
	}
	changedMsg struct{}
	doneMsg    struct {
		said string
		err  error
	}
)

// Init takes the first snapshot and waits for changes.
func (m *Model) Init() tea.Cmd { return tea.Batch(m.read(), m.waitForChange()) }

func (m *Model) read() tea.Cmd {
	return func() tea.Msg {
		s, err := m.cfg.Read(context.Background())
		return snapshotMsg{s, err}
	}
}

func (m *Model) waitForChange() tea.Cmd {
	if m.cfg.Changes == nil {
		return nil
	}
	return func() tea.Msg {
		if _, ok := <-m.cfg.Changes; !ok {
			return nil
		}
		return changedMsg{}
	}
}

// Update takes a message: a snapshot, a change, a key, a window's size.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		if m.detail != nil {
			m.detail.Width, m.detail.Height = msg.Width, msg.Height-2
		}
	case snapshotMsg:
		return m, m.take(msg)
	case changedMsg:
		// Changes that come faster than lookGap are looked at together.
		wait := time.Until(m.lastRead.Add(lookGap))
		m.lastRead = time.Now().Add(max(wait, 0))
		if wait <= 0 {
			return m, tea.Batch(m.read(), m.waitForChange())
		}
		return m, tea.Batch(tea.Tick(wait, func(time.Time) tea.Msg { return m.read()() }), m.waitForChange())
	case doneMsg:
		m.said = msg.said
		if msg.err != nil {
			m.said = "refused: " + msg.err.Error()
		}
		return m, m.read()
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

// take shows a new snapshot, and rings for each agent that came to need
// the person since the last.
func (m *Model) take(msg snapshotMsg) tea.Cmd {
	m.err = msg.err
	if msg.err != nil {
		return nil
	}
	var rings []string
	if m.snap != nil {
		before := make(map[string]bool, len(m.snap.Agents))
		for _, a := range m.snap.Agents {
			before[a.Name] = a.NeedsYou()
		}
		for _, a := range msg.snap.Agents {
			if a.NeedsYou() && !before[a.Name] {
				_, word, _ := stateOf(a)
				rings = append(rings, a.Name+" "+word)
			}
		}
	}
	m.snap = msg.snap
	m.agent = clamp(m.agent, len(m.snap.Agents))
	m.request = clamp(m.request, len(m.snap.Requests))
	if m.logAt < 0 || m.logAt >= len(m.logShown())-2 {
		m.logAt = len(m.logShown()) - 1 // following the end
	}
	m.logAt = clamp(m.logAt, len(m.logShown()))
	if len(rings) == 0 || m.cfg.Ring == nil {
		return nil
	}
	text := "switchboard: " + strings.Join(rings, "; ")
	return func() tea.Msg { m.cfg.Ring(text); return nil }
}

func clamp(i, n int) int { return max(0, min(i, n-1)) }

// logShown are the records the log panel shows, filtered.
func (m *Model) logShown() []mailbox.Record {
	if m.snap == nil {
		return nil
	}
	if !m.blockedOnly && m.about == "" {
		return m.snap.Log
	}
	var out []mailbox.Record
	for _, rec := range m.snap.Log {
		if m.blockedOnly && rec.Status != mailbox.StatusBlocked && rec.Status != mailbox.StatusPartial {
			continue
		}
		if m.about != "" && !rec.Involves(m.about) {
			continue
		}
		out = append(out, rec)
	}
	return out
}

// selectedAgent is the agent under the cursor, "" when none.
func (m *Model) selectedAgent() string {
	if m.snap == nil || len(m.snap.Agents) == 0 {
		return ""
	}
	return m.snap.Agents[m.agent].Name
}

// key acts on a key press.
func (m *Model) key(k tea.KeyMsg) tea.Cmd {
	if m.prompt != nil {
		return m.promptKey(k)
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
			m.about = m.selectedAgent()
		} else {
			m.about = ""
		}
		m.logAt = len(m.logShown()) - 1
	case "a", "d", "A", "N", "r":
		return m.answer(k.String())
	case "i":
		return m.ask("interrupt "+m.selectedAgent()+", why", func(agent string) func(string) error {
			return func(reason string) error { return m.cfg.Act.Interrupt(agent, reason) }
		})
	case "c":
		return m.ask("cancel "+m.selectedAgent()+" and its helpers, why", func(agent string) func(string) error {
			return func(reason string) error { return m.cfg.Act.Cancel(agent, reason) }
		})
	case "x":
		return m.ask("close "+m.selectedAgent()+" and its helpers? type yes", func(agent string) func(string) error {
			return func(yes string) error {
				if yes != "yes" {
					return fmt.Errorf("not closed: type yes to close")
				}
				return m.cfg.Act.Close(agent)
			}
		})
	case "g":
		agent := m.selectedAgent()
		if agent == "" {
			return nil
		}
		return func() tea.Msg { return doneMsg{said: "jumped to " + agent + "'s pane", err: m.cfg.Act.Jump(agent)} }
	case "s":
		return m.ask("send to "+m.selectedAgent()+", title", func(agent string) func(string) error {
			return func(title string) error { return m.cfg.Act.Send(agent, title) }
		})
	}
	return nil
}

// move moves the focused panel's cursor.
func (m *Model) move(by int) {
	if m.snap == nil {
		return
	}
	switch m.focus {
	case panelAgents:
		m.agent = clamp(m.agent+by, len(m.snap.Agents))
	case panelRequests:
		m.request = clamp(m.request+by, len(m.snap.Requests))
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
	case m.focus == panelRequests && len(m.snap.Requests) > 0:
		seq := m.snap.Requests[m.request].Seq
		for i := range m.snap.Log {
			if m.snap.Log[i].Seq == seq {
				rec = &m.snap.Log[i]
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

// answer answers the question under the cursor, as the operator.
func (m *Model) answer(key string) tea.Cmd {
	if m.focus != panelRequests || m.snap == nil || len(m.snap.Requests) == 0 {
		return nil
	}
	r := m.snap.Requests[m.request]
	if !r.ForOperator() {
		m.said = fmt.Sprintf("#%d waits on %s: the rules give you no answer to it", r.Seq, strings.Join(r.To, ", "))
		return nil
	}
	option := map[string]string{"a": "allow", "d": "deny", "A": "always", "N": "never"}[key]
	if key == "r" || !r.Permission {
		return m.ask(fmt.Sprintf("answer #%d (%s)", r.Seq, strings.Join(r.Options, ", ")), func(string) func(string) error {
			return func(text string) error { return m.cfg.Act.Answer(r.ID, text) }
		})
	}
	return func() tea.Msg {
		err := m.cfg.Act.Answer(r.ID, option)
		return doneMsg{said: fmt.Sprintf("answered #%d: %s", r.Seq, option), err: err}
	}
}

// ask opens a prompt for the agent under the cursor; enter runs act with
// the line typed.
func (m *Model) ask(label string, act func(agent string) func(string) error) tea.Cmd {
	agent := m.selectedAgent()
	if agent == "" {
		return nil
	}
	in := textinput.New()
	in.CharLimit = mailbox.MaxTitleLength
	in.Focus()
	do := act(agent)
	m.prompt = &prompt{label: label, input: in, then: func(text string) tea.Cmd {
		return func() tea.Msg {
			err := do(text)
			return doneMsg{said: label + ": " + text + " — done", err: err}
		}
	}}
	return nil
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

// Frame takes a snapshot and draws it once, width columns by height rows.
func (m *Model) Frame(ctx context.Context, width, height int) (string, error) {
	s, err := m.cfg.Read(ctx)
	if err != nil {
		return "", err
	}
	m.width, m.height = width, height
	m.take(snapshotMsg{snap: s})
	return m.View(), nil
}

// View draws the console.
func (m *Model) View() string {
	if m.detail != nil {
		return m.detail.View() + "\n" + styleQuiet.Render("↑↓ scroll · esc back")
	}
	var lines []string
	head := "switchboard"
	if s := m.snap; s != nil {
		needs := 0
		for _, a := range s.Agents {
			if a.NeedsYou() {
				needs++
			}
		}
		head += fmt.Sprintf(" · %d agents · %d need you · status %s", len(s.Agents), needs, orNone(s.Status))
		if s.Phase != "" {
			head += " · phase " + s.Phase
		}
	}
	lines = append(lines, styleTitle.Render(fit(head, m.width)))
	if m.err != nil {
		lines = append(lines, styleBad.Render("cannot read the team: "+m.err.Error()))
	}
	if m.snap == nil {
		return strings.Join(lines, "\n")
	}
	if n := m.snap.OlderWarnings; n > 0 {
		lines = append(lines, styleQuiet.Render(fit(fmt.Sprintf("%d older warnings not shown", n), m.width)))
	}
	for _, w := range m.snap.Warnings {
		lines = append(lines, styleWarn.Render(fit("warning: "+w, m.width)))
	}
	var requests []string
	if len(m.snap.Requests) > 0 {
		requests = append([]string{""}, renderRequests(m.snap, m.request, m.width, m.focus == panelRequests)...)
	}
	// The agents take what the window has left after the other panels
	// and at least logRows lines of log: a large team scrolls.
	const logRows, below = 5, 5 // the log's rows; its heading, blank lines and the two last lines
	agentRows := m.height - len(lines) - 1 - len(requests) - logRows - below
	lines = append(lines, renderAgents(m.snap, m.agent, m.width, max(3, agentRows), m.focus == panelAgents)...)
	lines = append(lines, requests...)
	filter := ""
	if m.blockedOnly {
		filter = "blocked only"
	}
	if m.about != "" {
		filter = strings.TrimPrefix(filter+", "+m.about+"'s", ", ")
	}
	lines = append(lines, "")
	room := max(3, m.height-len(lines)-4)
	lines = append(lines, renderLog(m.logShown(), m.logAt, m.width, room, m.focus == panelLog, filter)...)
	lines = append(lines, "")
	switch {
	case m.prompt != nil:
		lines = append(lines, m.prompt.label+": "+m.prompt.input.View())
	case m.said != "":
		lines = append(lines, fit(m.said, m.width))
	default:
		lines = append(lines, "")
	}
	lines = append(lines, styleQuiet.Render(fit("tab panel · ↑↓ move · enter open · g go to pane · i interrupt · c cancel · x close · s send · a/d/A/N answer · b blocked · f agent's log · q quit", m.width)))
	return strings.Join(lines, "\n")
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
