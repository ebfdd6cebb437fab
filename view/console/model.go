package console

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"switchboard/desk"
	"switchboard/mailbox"
)

// Actions are what the console does, as the operator: each one verb of the
// desk, so that the rules decide as they do for the commands and the tools.
type Actions interface {
	Answer(id, option string) error
	Interrupt(agent, reason string) error
	Cancel(agent, reason string) error
	Close(agent string) error
	// Send sends a message of the operator's: a title and a body, which
	// may be empty.
	Send(to, title, content string) error
	// Jump shows the agent's pane, when the console runs in the team's
	// tmux.
	Jump(agent string) error
}

// Config is what a console needs: how to take a snapshot, what to act
// with, when to look again, and how to ring.
type Config struct {
	Read    func(ctx context.Context) (*desk.Snapshot, error)
	Act     Actions
	Changes <-chan struct{} // a value each time the team may have changed
	// Ring tells the person, outside the console too, that an agent needs
	// them; nil rings nowhere.
	Ring func(text string)
	// MayClose says why the one who runs the console cannot close an
	// agent, nil when they can: the console asks to confirm only a close
	// that can happen. Nil asks for every close, and Act.Close decides.
	MayClose func(agent string) error
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
	snap   *desk.Snapshot
	err    error
	width  int
	height int
	focus  panel
	// The agent and the question chosen, by name and by seq: the keys act
	// on them wherever a new snapshot puts them.
	agent, request choice
	logAt          int // the log's cursor, by position: it only opens messages
	blockedOnly    bool
	about          string // the log shows this agent's messages alone, when set
	prompt         *prompt
	detail         *viewport.Model
	// checking is the agent whose close is being checked before the
	// person is asked to confirm it; keys wait meanwhile.
	checking string
	said     string    // what the last action did
	lastRead time.Time // when the last look for a change was taken
	lookDue  bool      // a look is due, after lookGap: it sees every change till then

	// The frame the last Update drew, and its clock: the time its ages
	// are told against, the last snapshot's or the last tick's; ticking
	// is a tick due. tick makes the clock's ticks and the delayed looks
	// (tea.Tick; a test's fake clock).
	view    string
	drawn   bool
	now     time.Time
	clock   clockFace
	ticking bool
	tick    func(time.Duration, func(time.Time) tea.Msg) tea.Cmd
}

// clockTick is how often the frame is drawn again while it shows an age
// under a minute: ages are told in seconds until then, and as clock times
// after, so that a console at rest runs no timer.
const clockTick = time.Second

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
func New(cfg Config) *Model {
	return &Model{cfg: cfg, width: 120, height: 40, logAt: -1, tick: tea.Tick}
}

// The console's messages.
type (
	snapshotMsg struct {
		snap *desk.Snapshot
		err  error
	}
	changedMsg struct{}
	lookMsg    struct{}  // the look due after a change is
	clockMsg   time.Time // the clock ticked: the ages shown are a second older
	doneMsg    struct {
		said string
		err  error
	}
	// closeCheckedMsg is whether agent may be closed: err says why not.
	closeCheckedMsg struct {
		agent string
		err   error
	}
)

// Init takes the first snapshot and waits for changes.
func (m *Model) Init() tea.Cmd { return tea.Batch(m.read(), m.waitForChange()) }

// look reads the team after a change.
func (m *Model) look() tea.Cmd {
	m.lastRead = time.Now()
	return m.read()
}

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

// Update takes a message (a snapshot, a change, a key, a window's size, a
// tick of the clock) and draws the frame again; while the frame shows an
// age under a minute, the clock ticks.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	m.redraw()
	if m.clock.young && !m.ticking {
		m.ticking = true
		cmd = tea.Batch(cmd, m.tick(clockTick, func(t time.Time) tea.Msg { return clockMsg(t) }))
	}
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		if m.detail != nil {
			m.detail.Width, m.detail.Height = msg.Width, msg.Height-2
		}
	case snapshotMsg:
		return m.take(msg)
	case changedMsg:
		// Changes that come faster than lookGap are looked at together,
		// by one look: a team coming up changes hundreds of files at once.
		next := m.waitForChange()
		if m.lookDue {
			return next // the look due sees this change too
		}
		if wait := time.Until(m.lastRead.Add(lookGap)); wait > 0 {
			m.lookDue = true
			return tea.Batch(m.tick(wait, func(time.Time) tea.Msg { return lookMsg{} }), next)
		}
		return tea.Batch(m.look(), next)
	case lookMsg:
		m.lookDue = false
		return m.look()
	case doneMsg:
		m.said = msg.said
		if msg.err != nil {
			m.said = "refused: " + msg.err.Error()
		}
		return m.read()
	case clockMsg:
		m.ticking = false
		if t := time.Time(msg); t.After(m.now) {
			m.now = t
		}
	case closeCheckedMsg:
		m.closeChecked(msg)
	case tea.KeyMsg:
		return m.key(msg)
	}
	return nil
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
	m.now = msg.snap.At
	m.agent.follow(agentKeys(m.snap))
	m.request.follow(requestKeys(m.snap))
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

// agentKeys are the keys of the agents' rows: their names.
func agentKeys(s *desk.Snapshot) []string {
	keys := make([]string, len(s.Agents))
	for i, a := range s.Agents {
		keys[i] = a.Name
	}
	return keys
}

// requestKeys are the keys of the questions' rows: "#" and their seq, as
// the console shows them.
func requestKeys(s *desk.Snapshot) []string {
	keys := make([]string, len(s.Requests))
	for i, r := range s.Requests {
		keys[i] = fmt.Sprintf("#%d", r.Seq)
	}
	return keys
}

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
