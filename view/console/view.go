package console

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"

	"switchboard/conversation"
	"switchboard/desk"
	"switchboard/internal/safetext"
	"switchboard/mailbox"
)

// The looks of the console: a state's symbol and colour tell it at a glance.
var (
	styleTitle    = lipgloss.NewStyle().Bold(true)
	styleHeader   = lipgloss.NewStyle().Faint(true)
	styleSelected = lipgloss.NewStyle().Reverse(true)
	styleWarn     = lipgloss.NewStyle().Foreground(lipgloss.Color("3"))
	styleBad      = lipgloss.NewStyle().Foreground(lipgloss.Color("1"))
	styleGood     = lipgloss.NewStyle().Foreground(lipgloss.Color("2"))
	styleQuiet    = lipgloss.NewStyle().Faint(true)
)

// stateOf is how an agent's state reads: a symbol, a word, and its style.
func stateOf(a desk.AgentSummary) (symbol, word string, style lipgloss.Style) {
	switch {
	case a.Asking > 0:
		return "?", "asks you", styleWarn
	case a.State == conversation.Waiting:
		return "!", "at a prompt", styleWarn
	case a.State == conversation.Idle && a.Urgent > 0:
		return "!", "idle, urgent", styleWarn
	case a.State == conversation.Busy:
		return "●", "busy", styleGood
	case a.State == conversation.Idle:
		return "○", "idle", lipgloss.NewStyle()
	case a.State == conversation.Interrupted:
		return "‖", "interrupted", styleWarn
	case a.State == conversation.Limited:
		return "⏸", "limited", styleWarn
	case a.State == desk.StateOverBudget:
		return "$", "over budget", styleWarn
	case a.State == desk.StateCancelled:
		return "⊘", "cancelled", styleQuiet
	case a.State == conversation.Exited && a.ExitStatus != nil:
		return "✗", fmt.Sprintf("exited %d", *a.ExitStatus), styleBad
	case a.State == conversation.Exited:
		return "✗", "exited", styleBad
	case a.State == conversation.Starting:
		return "…", "starting", styleQuiet
	}
	return "·", a.State, styleQuiet
}

// zone is where the console shows times: the machine's own; the tests
// of the golden frames set UTC.
var zone = time.Local

// column is one column of the agents' table: its heading, width, and cell.
type column struct {
	head  string
	width int
	cell  func(a desk.AgentSummary, c *clockFace) string
}

// agentColumns are the columns after the agent's name and state, in the
// order they are dropped last: a narrow terminal hides the last first.
var agentColumns = []column{
	{"NEW", 4, func(a desk.AgentSummary, _ *clockFace) string { return count(a.Unread) }},
	{"URG", 4, func(a desk.AgentSummary, _ *clockFace) string { return count(a.Urgent) }},
	{treeHead, 12, func(a desk.AgentSummary, _ *clockFace) string { return treeCell(a) }},
	{spentHead, 13, func(a desk.AgentSummary, _ *clockFace) string { return spentCell(a.Today) }},
	{"TASK", 28, func(a desk.AgentSummary, _ *clockFace) string { return a.Task }},
	{"LAST IN", 30, func(a desk.AgentSummary, c *clockFace) string { return lineOf(a.LastIn, c) }},
	{"LAST OUT", 30, func(a desk.AgentSummary, c *clockFace) string { return lineOf(a.LastOut, c) }},
	{"LOCKS", 16, func(a desk.AgentSummary, _ *clockFace) string { return strings.Join(a.Locks, ",") }},
}

// treeHead heads the column of the agents' worktrees, shown only when an
// agent has one.
const treeHead = "TREE"

// treeCell is an agent's worktree changes: "+12/-3", or "" without a tree.
func treeCell(a desk.AgentSummary) string {
	if a.Worktree == nil {
		return ""
	}
	if a.Worktree.Refused != "" {
		return "REFUSED" // no git was run in it; switchboard agents says why
	}
	return fmt.Sprintf("+%d/-%d", a.Worktree.Added, a.Worktree.Deleted)
}

// spentHead heads the column of what each agent's clients spent today,
// shown only when one spent something.
const spentHead = "TODAY"

// spentCell is what an agent spent today: its tokens, in, out and cached
// together, and the cost estimate ("18.2k $0.05"); "" when nothing.
func spentCell(u *desk.AgentUsage) string {
	if u == nil || u.Tokens.Sum() == 0 {
		return ""
	}
	return fmt.Sprintf("%s $%.2f", shortCount(u.Tokens.Sum()), u.Cost)
}

// shortCount writes a count in three figures at most: 950, 18.2k, 3.4M.
func shortCount(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	default:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	}
}

// The fixed columns: the name (with its place in the tree) and the state,
// after the cursor's mark.
const (
	nameWidth  = 26
	stateWidth = 16
	fixedWidth = 2 + nameWidth + 1 + stateWidth
)

func count(n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprint(n)
}

// lineOf is a message in a cell: when, and its title.
func lineOf(l *desk.MessageLine, c *clockFace) string {
	if l == nil {
		return ""
	}
	return c.when(l.Time) + " " + l.Title
}

// clockFace is what the times of a frame are told against: the time now,
// and whether the frame shows an age under a minute.
type clockFace struct {
	now   time.Time
	young bool
}

// when tells a time in a cell: its age while under a minute ("42s"),
// which the console's clock keeps true by drawing again each second; after
// that its clock time ("14:03"), or its day ("Nov 24") before today, which
// stay true with no clock: a console at rest draws nothing.
func (c *clockFace) when(t time.Time) string {
	d := c.now.Sub(t)
	if d < time.Minute {
		c.young = true
		return fmt.Sprintf("%ds", max(0, int(d.Seconds())))
	}
	local, today := t.In(zone), c.now.In(zone)
	if y, m, d := local.Date(); y == today.Year() && m == today.Month() && d == today.Day() {
		return local.Format("15:04")
	}
	return local.Format("Jan 2")
}

// fit cuts s to width cells, with … when cut, and pads it to width.
func fit(s string, width int) string {
	s = safetext.Line(s)
	if lipgloss.Width(s) > width {
		r := []rune(s)
		for len(r) > 0 && lipgloss.Width(string(r))+1 > width {
			r = r[:len(r)-1]
		}
		s = string(r) + "…"
	}
	return s + strings.Repeat(" ", max(0, width-lipgloss.Width(s)))
}

// shownColumns are the columns that fit in width, and how many do not. The
// worktree column is there only when an agent has a tree, the spending one
// only when an agent spent something today.
func shownColumns(s *desk.Snapshot, width int) (shown []column, hidden int) {
	all := agentColumns
	if !slices.ContainsFunc(s.Agents, func(a desk.AgentSummary) bool { return a.Worktree != nil }) {
		all = slices.DeleteFunc(slices.Clone(all), func(c column) bool { return c.head == treeHead })
	}
	if !slices.ContainsFunc(s.Agents, func(a desk.AgentSummary) bool { return spentCell(a.Today) != "" }) {
		all = slices.DeleteFunc(slices.Clone(all), func(c column) bool { return c.head == spentHead })
	}
	used := fixedWidth
	for i, c := range all {
		if used+1+c.width > width {
			return all[:i], len(all) - i
		}
		used += 1 + c.width
	}
	return all, 0
}

// tableWidth is the width of the agents' table with every column shown.
func tableWidth(s *desk.Snapshot) int {
	cols, _ := shownColumns(s, math.MaxInt)
	width := fixedWidth
	for _, c := range cols {
		width += 1 + c.width
	}
	return width
}

// marked is a panel's row with the cursor's mark before it, highlighted
// when the panel has the keys.
func marked(row string, atCursor, focused bool) string {
	if !atCursor {
		return "  " + row
	}
	if focused {
		row = styleSelected.Render(row)
	}
	return "▸ " + row
}

// renderAgents draws the agents' table in at most rows lines below its
// heading, the chosen agent's row marked and in view (or, when it left,
// where it stood, and a line that says it left); the rows left out are
// counted.
func renderAgents(s *desk.Snapshot, chosen choice, width, rows int, focused bool, clock *clockFace) []string {
	cols, hidden := shownColumns(s, width)
	head := "  " + fit("AGENT", nameWidth) + " " + fit("STATE", stateWidth)
	for _, c := range cols {
		head += " " + fit(c.head, c.width)
	}
	if hidden > 0 {
		head += fmt.Sprintf(" +%d hidden", hidden)
	}
	lines := []string{styleHeader.Render(head)}
	if chosen.gone {
		rows--
	}
	start, end := 0, len(s.Agents)
	if end > rows {
		// A window of rows-1 agents around the cursor, and a line that
		// counts the others.
		shown := max(1, rows-1)
		start = max(0, min(chosen.row-shown/2, len(s.Agents)-shown))
		end = start + shown
	}
	for i := start; i < end; i++ {
		a := s.Agents[i]
		symbol, word, style := stateOf(a)
		name := strings.Repeat("  ", a.Depth)
		if a.Depth > 0 {
			name = strings.Repeat("  ", a.Depth-1) + "└ "
		}
		row := fit(name+symbol+" "+a.Name, nameWidth) + " " + style.Render(fit(word, stateWidth))
		for _, c := range cols {
			row += " " + fit(c.cell(a, clock), c.width)
		}
		lines = append(lines, marked(row, i == chosen.cursor(), focused))
	}
	if chosen.gone {
		lines = append(lines, styleWarn.Render(fit("  "+agentLeft(chosen.key), width)))
	}
	if above, below := start, len(s.Agents)-end; above+below > 0 {
		lines = append(lines, styleQuiet.Render(fmt.Sprintf("  … %d more above, %d below (↑↓ to see them)", above, below)))
	}
	return lines
}

// renderRequests draws the questions that wait for an answer, the chosen
// one marked, or a line that says it no longer waits; each with the keys
// that answer it, or, plain, with who it waits on.
func renderRequests(s *desk.Snapshot, chosen choice, width int, focused, plain bool, clock *clockFace) []string {
	lines := []string{styleHeader.Render(fmt.Sprintf("  QUESTIONS WAITING (%d)", len(s.Requests)))}
	for i, r := range s.Requests {
		who := fmt.Sprintf("#%d %s → %s", r.Seq, r.From, strings.Join(r.To, ", "))
		how := "a allow · d deny · A always · N never"
		if r.Permission == nil {
			how = "r answer"
		}
		if plain || !r.ForOperator() {
			how = "waits on " + strings.Join(r.To, ", ")
		}
		row := fit(fmt.Sprintf("%s %s: %s", clock.when(r.Time), who, r.Title), max(20, width-lipgloss.Width(how)-5)) + "  " + styleQuiet.Render(how)
		lines = append(lines, marked(row, i == chosen.cursor(), focused))
	}
	if chosen.gone {
		lines = append(lines, styleWarn.Render(fit("  "+questionLeft(chosen.key), width)))
	}
	return lines
}

// renderLog draws the last records that fit in height, the cursor's shown.
func renderLog(records []mailbox.Record, cursor, width, height int, focused bool, filter string) []string {
	head := "  LOG"
	if filter != "" {
		head += " (" + filter + ")"
	}
	lines := []string{styleHeader.Render(head)}
	start := max(0, min(cursor-height/2, len(records)-height))
	for i := start; i < len(records) && i < start+height; i++ {
		rec := records[i]
		to := slices.Clone(rec.Delivered)
		for _, b := range rec.Blocked {
			to = append(to, "✗"+b.To)
		}
		row := fit(fmt.Sprintf("#%-5d %s %s → %s: %s", rec.Seq, rec.Time.In(zone).Format("15:04:05"), rec.Message.From, strings.Join(to, ", "), rec.Message.Title), width-2)
		if rec.Status == mailbox.StatusBlocked {
			row = styleBad.Render(row)
		}
		lines = append(lines, marked(row, i == cursor, focused))
	}
	return lines
}

// onceLogRows is how many of the log's last records a frame for a script
// shows.
const onceLogRows = 20

// Frame takes a snapshot and draws it once, plainly, for a script or a
// glance: every agent, every question and the log's last onceLogRows
// records; no cursor, no key help, no padding at the lines' ends. Width 0
// is as wide as the agents' table with every column: a script's output is
// not the terminal's, and a column it hid would be lost to it.
func (m *Model) Frame(ctx context.Context, width int) (string, error) {
	s, err := m.cfg.Read(ctx)
	if err != nil {
		return "", err
	}
	m.take(snapshotMsg{snap: s})
	m.width = width
	if width <= 0 {
		m.width = tableWidth(s)
	}
	lines := m.draw(true, &clockFace{now: s.At})
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n"), nil
}

// View is the console's frame, as the last Update drew it.
func (m *Model) View() string {
	if !m.drawn {
		m.redraw()
	}
	return m.view
}

// redraw draws the frame, and notes whether it shows an age under a
// minute, which the clock keeps true.
func (m *Model) redraw() {
	m.clock = clockFace{now: m.now}
	if m.detail != nil {
		m.view = m.detail.View() + "\n" + styleQuiet.Render("↑↓ scroll · esc back")
	} else {
		m.view = strings.Join(m.draw(false, &m.clock), "\n")
	}
	m.drawn = true
}

// draw draws the console's lines, their times told against clock: in the
// window, with the cursors, the line of what was said and the keys' help;
// or plain, for Frame.
func (m *Model) draw(plain bool, clock *clockFace) []string {
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
		return lines
	}
	if n := m.snap.OlderWarnings; n > 0 {
		lines = append(lines, styleQuiet.Render(fit(fmt.Sprintf("%d older warnings not shown", n), m.width)))
	}
	for _, w := range m.snap.Warnings {
		lines = append(lines, styleWarn.Render(fit("warning: "+w, m.width)))
	}
	agent, request := m.agent, m.request
	if plain {
		agent, request = choice{}, choice{} // nothing chosen: no cursor
	}
	var requests []string
	if len(m.snap.Requests) > 0 {
		requests = append([]string{""}, renderRequests(m.snap, request, m.width, m.focus == panelRequests, plain, clock)...)
	}
	// The agents take what the window has left after the other panels
	// and at least logRows lines of log: a large team scrolls. A frame
	// for a script has no window: it shows them all.
	const logRows, below = 5, 5 // the log's rows; its heading, blank lines and the two last lines
	agentRows := m.height - len(lines) - 1 - len(requests) - logRows - below
	if plain {
		agentRows = len(m.snap.Agents)
	}
	lines = append(lines, renderAgents(m.snap, agent, m.width, max(3, agentRows), m.focus == panelAgents, clock)...)
	lines = append(lines, requests...)
	filter := ""
	if m.blockedOnly {
		filter = "blocked only"
	}
	if m.about != "" {
		filter = strings.TrimPrefix(filter+", "+m.about+"'s", ", ")
	}
	lines = append(lines, "")
	if plain {
		log := m.logShown()
		return append(lines, renderLog(log[max(0, len(log)-onceLogRows):], -1, m.width, onceLogRows, false, filter)...)
	}
	room := max(3, m.height-len(lines)-4)
	lines = append(lines, renderLog(m.logShown(), m.logAt, m.width, room, m.focus == panelLog, filter)...)
	lines = append(lines, "")
	switch {
	case m.prompt != nil:
		lines = append(lines, m.prompt.label+": "+m.prompt.input.View())
	case m.checking != "":
		lines = append(lines, fit("checking whether "+m.checking+" can be closed…", m.width))
	case m.said != "":
		lines = append(lines, fit(m.said, m.width))
	default:
		lines = append(lines, "")
	}
	return append(lines, styleQuiet.Render(fit("tab panel · ↑↓ move · enter open · g go to pane · i interrupt · c cancel · x close · s send · r/a/d/A/N answer · b blocked · f agent's log · q quit", m.width)))
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
