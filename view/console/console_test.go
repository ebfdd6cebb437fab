package console

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"switchboard/conversation"
	"switchboard/desk"
	"switchboard/internal/clientusage"
	"switchboard/mailbox"
)

var update = flag.Bool("update", false, "write the golden frames anew")

func TestMain(m *testing.M) {
	zone = time.UTC // the log's times, as the golden frames have them
	os.Exit(m.Run())
}

var at = time.Date(2026, 11, 25, 9, 30, 0, 0, time.UTC)

func record(seq int64, from string, to []string, title, typ string, ago time.Duration) mailbox.Record {
	m := &mailbox.Message{ID: "01a2000" + string(rune('0'+seq)), From: from, To: to, Title: title, Type: typ, Priority: mailbox.PriorityNormal}
	if typ == mailbox.TypeRequest {
		m.RequiresResponse = true
	}
	return mailbox.Record{Seq: seq, Time: at.Add(-ago), Status: mailbox.StatusDelivered, Delivered: to, Message: m}
}

// vouchedPrompt is a record of the permission prompt of from's bridge, for a Bash
// command, as the master vouches for it.
func vouchedPrompt(seq int64, from string, to []string, command string, ago time.Duration) mailbox.Record {
	rec := record(seq, from, to, "[PERMISSION] Bash: "+command, mailbox.TypeRequest, ago)
	rec.Message.SetPermission(mailbox.Permission{Agent: from, Tool: "Bash", Command: command, Rule: strings.Fields(command)[0] + " *"})
	rec.Permission = true
	return rec
}

// team is a snapshot of a team at work: the developer busy with a helper
// that asks it a permission question sent up to the person, the tester
// idle with urgent mail, a message the rules blocked.
func team() *desk.Snapshot {
	exited := 2
	log := []mailbox.Record{
		record(1, "master_agent", []string{"developer_agent"}, "Implement the login form", mailbox.TypeRequest, 20*time.Minute),
		record(2, "developer_agent", []string{"reviewer_agent-1"}, "Review auth.go", mailbox.TypeRequest, 9*time.Minute),
		record(3, "tester_agent", nil, "Found a bug", mailbox.TypeNotification, 5*time.Minute),
		vouchedPrompt(4, "reviewer_agent-1", []string{mailbox.Operator}, "npm test", 30*time.Second),
		record(5, "master_agent", []string{"tester_agent"}, "Stop: the API changed", mailbox.TypeNotification, 10*time.Second),
	}
	log[2].Status, log[2].Blocked = mailbox.StatusBlocked, []mailbox.Block{{To: "reviewer_agent", Reason: "Should go through developer first"}}
	members := []desk.Member{
		{Name: "master_agent", State: conversation.Idle},
		{Name: "developer_agent", State: conversation.Busy, Unread: 2},
		{Name: "reviewer_agent", State: conversation.Exited, ExitStatus: &exited},
		{Name: "tester_agent", State: conversation.Idle, Unread: 1, Urgent: 1},
		{Name: "reviewer_agent-1", State: conversation.Waiting, Parent: "developer_agent"},
	}
	s := desk.SnapshotOf(at, members, log, nil)
	s.Status, s.Phase = "normal", "build"
	return s
}

// fakeActions records what the console asked for.
type fakeActions struct{ done []string }

func (f *fakeActions) Answer(id, option string) error {
	f.done = append(f.done, "answer "+id+" "+option)
	return nil
}
func (f *fakeActions) Interrupt(agent, reason string) error {
	f.done = append(f.done, "interrupt "+agent+": "+reason)
	return nil
}
func (f *fakeActions) Cancel(agent, reason string) error {
	f.done = append(f.done, "cancel "+agent+": "+reason)
	return nil
}
func (f *fakeActions) Close(agent string) error {
	f.done = append(f.done, "close "+agent)
	return nil
}
func (f *fakeActions) Jump(agent string) error {
	f.done = append(f.done, "jump "+agent)
	return nil
}
func (f *fakeActions) Send(to, title, content string) error {
	f.done = append(f.done, "send "+to+": "+title+" / "+content)
	return nil
}

// console is a console over snapshots the test gives, in a window of
// width by height.
func console(t *testing.T, width, height int, snaps ...*desk.Snapshot) (*Model, *fakeActions, *[]string) {
	t.Helper()
	acts := &fakeActions{}
	var rings []string
	next := 0
	m := New(Config{
		Read: func(context.Context) (*desk.Snapshot, error) {
			s := snaps[min(next, len(snaps)-1)]
			next++
			return s, nil
		},
		Act:  acts,
		Ring: func(text string) { rings = append(rings, text) },
	})
	m.tick = stoppedClock
	m.Update(tea.WindowSizeMsg{Width: width, Height: height})
	run(m, m.read())
	return m, acts, &rings
}

// stoppedClock gives the console no tick: its frames keep the time of the
// snapshot taken, as the golden frames have it.
func stoppedClock(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }

// run runs a command's message through the console (or the screen it is
// drawn on), and the commands that follow from it, as the program would.
func run(m tea.Model, cmd tea.Cmd) {
	for cmd != nil {
		msg := cmd()
		if msg == nil {
			return
		}
		if batch, ok := msg.(tea.BatchMsg); ok {
			for _, c := range batch {
				run(m, c)
			}
			return
		}
		_, cmd = m.Update(msg)
	}
}

func press(m *Model, keys ...string) {
	for _, k := range keys {
		var msg tea.KeyMsg
		switch k {
		case "tab":
			msg = tea.KeyMsg{Type: tea.KeyTab}
		case "enter":
			msg = tea.KeyMsg{Type: tea.KeyEnter}
		case "esc":
			msg = tea.KeyMsg{Type: tea.KeyEsc}
		case "down":
			msg = tea.KeyMsg{Type: tea.KeyDown}
		default:
			msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
		}
		_, cmd := m.Update(msg)
		if m.prompt != nil {
			// A key typed in a prompt only blinks its cursor, a timer of
			// half a second that would slow each key of the tests.
			continue
		}
		run(m, cmd)
	}
}

// golden compares a frame with testdata/name.golden (written anew with
// -update).
func golden(t *testing.T, name, frame string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(frame), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./console -update to write it)", err)
	}
	if frame != string(want) {
		t.Errorf("frame %s differs from %s:\n%s", name, path, frame)
	}
}

func TestTheFrameShowsWhoNeedsYouFirst(t *testing.T) {
	m, _, _ := console(t, 140, 30, team())
	frame := m.View()
	golden(t, "team-140", frame)
	lines := strings.Split(frame, "\n")
	// The developer's helper asks the person: it and its parent lead.
	if !strings.Contains(lines[2], "developer_agent") || !strings.Contains(lines[3], "└ ? reviewer_agent-1") || !strings.Contains(lines[3], "asks you") {
		t.Errorf("the tree does not lead with who needs you:\n%s", frame)
	}
	if !strings.Contains(frame, "! tester_agent") || !strings.Contains(frame, "✗ reviewer_agent") || !strings.Contains(frame, "exited 2") {
		t.Errorf("states are not told apart:\n%s", frame)
	}
}

func TestANarrowFrameHidesColumns(t *testing.T) {
	m, _, _ := console(t, 72, 24, team())
	frame := m.View()
	golden(t, "team-72", frame)
	for _, line := range strings.Split(frame, "\n") {
		if w := len([]rune(line)); w > 72 {
			t.Errorf("a line of %d columns in a frame of 72: %q", w, line)
		}
	}
	if !strings.Contains(frame, "+4 hidden") {
		t.Errorf("the frame does not say what it hides:\n%s", frame)
	}
}

func TestAPermissionQuestionIsAnsweredFromTheKeyboard(t *testing.T) {
	m, acts, _ := console(t, 140, 30, team())
	press(m, "tab", "a")
	if len(acts.done) != 1 || acts.done[0] != "answer 01a20004 allow" {
		t.Fatalf("actions after tab, a: %q", acts.done)
	}
	if !strings.Contains(m.View(), "answered #4: allow") {
		t.Errorf("the console does not say what it did:\n%s", m.View())
	}
}

func TestAQuestionForAnotherIsNotAnswered(t *testing.T) {
	s := team()
	s.Requests[0].To = []string{"developer_agent"}
	m, acts, _ := console(t, 140, 30, s)
	press(m, "tab", "d")
	if len(acts.done) != 0 || !strings.Contains(m.View(), "waits on developer_agent") {
		t.Errorf("a question for developer_agent answered by the person: %q\n%s", acts.done, m.View())
	}
}

func TestAnAgentIsInterruptedWithAReason(t *testing.T) {
	m, acts, _ := console(t, 140, 30, team())
	press(m, "down", "down", "i", "s", "t", "o", "p", "enter")
	if len(acts.done) != 1 || acts.done[0] != "interrupt tester_agent: stop" {
		t.Errorf("actions: %q", acts.done)
	}
	press(m, "x", "n", "o", "enter")
	if len(acts.done) != 1 {
		t.Errorf("close without yes: %q", acts.done)
	}
	press(m, "g")
	if len(acts.done) != 2 || acts.done[1] != "jump tester_agent" {
		t.Errorf("g did not go to the agent's pane: %q", acts.done)
	}
}

// TestSendAsksForATitleAndABody: s asks for the title, then for the body,
// as the web view does, and sends both; a body left empty sends the title
// alone, and esc at the body sends nothing.
func TestSendAsksForATitleAndABody(t *testing.T) {
	m, acts, _ := console(t, 140, 30, team())
	press(m, "down", "down", "s")
	press(m, strings.Split("Rebase", "")...)
	press(m, "enter")
	if len(acts.done) != 0 {
		t.Fatalf("sent before the body was asked: %q", acts.done)
	}
	if v := m.View(); !strings.Contains(v, "send to tester_agent, body (enter for none):") {
		t.Fatalf("after the title the console does not ask for the body:\n%s", v)
	}
	press(m, strings.Split("the API changed", "")...)
	press(m, "enter")
	if len(acts.done) != 1 || acts.done[0] != "send tester_agent: Rebase / the API changed" {
		t.Fatalf("actions after a title and a body: %q", acts.done)
	}
	if v := m.View(); !strings.Contains(v, "sent to tester_agent: Rebase") {
		t.Errorf("the console does not say what it sent:\n%s", v)
	}

	press(m, "s", "O", "K", "enter", "enter")
	if len(acts.done) != 2 || acts.done[1] != "send tester_agent: OK / " {
		t.Errorf("a message without a body: %q", acts.done)
	}
	press(m, "s", "O", "K", "enter", "esc")
	if len(acts.done) != 2 {
		t.Errorf("esc at the body sent: %q", acts.done)
	}
	press(m, "s", "enter")
	if len(acts.done) != 2 || !strings.Contains(m.View(), "not sent: a message needs a title") {
		t.Errorf("a message without a title: %q\n%s", acts.done, m.View())
	}
}

func TestAMessageOpensWhole(t *testing.T) {
	s := team()
	s.Log[4].Message.Content = "The v2 API is out.\nRebase on main before you go on."
	m, _, _ := console(t, 100, 30, s)
	press(m, "tab", "tab", "enter")
	if v := m.View(); !strings.Contains(v, "#5  Stop: the API changed") || !strings.Contains(v, "Rebase on main before you go on.") {
		t.Errorf("the message opened:\n%s", v)
	}
	press(m, "esc")
	if strings.Contains(m.View(), "Rebase on main") {
		t.Error("esc did not close the message")
	}
}

func TestTheConsoleRingsWhenAnAgentComesToNeedYou(t *testing.T) {
	calm := team()
	calm.Requests = nil
	for i := range calm.Agents {
		calm.Agents[i].Asking, calm.Agents[i].AsksYou, calm.Agents[i].Urgent = 0, 0, 0
		if calm.Agents[i].State == conversation.Waiting {
			calm.Agents[i].State = conversation.Busy
		}
	}
	m, _, rings := console(t, 140, 30, calm, team())
	if len(*rings) != 0 {
		t.Fatalf("rang at the first look: %q", *rings)
	}
	_, cmd := m.Update(changedMsg{})
	run(m, cmd)
	if len(*rings) != 1 || !strings.Contains((*rings)[0], "reviewer_agent-1 asks you") || !strings.Contains((*rings)[0], "tester_agent idle, urgent") {
		t.Errorf("rings: %q", *rings)
	}
}

// BenchmarkFrameOf100Agents draws the frame of a team of 100 agents with
// a full log, as each change redraws it (target: ≤ 50 ms).
func BenchmarkFrameOf100Agents(b *testing.B) {
	s := team()
	for i := range 95 {
		s.Agents = append(s.Agents, desk.AgentSummary{Member: desk.Member{Name: fmt.Sprintf("helper-%03d", i), State: conversation.Busy, Parent: "developer_agent", Unread: i % 7}})
	}
	for i := range desk.DefaultLogTail {
		s.Log = append(s.Log, record(int64(6+i), "developer_agent", []string{"tester_agent"}, fmt.Sprintf("message %d", i), mailbox.TypeNotification, time.Duration(i)*time.Second))
	}
	m := New(Config{Read: func(context.Context) (*desk.Snapshot, error) { return s, nil }})
	m.tick = stoppedClock
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 60})
	run(m, m.read())
	b.ResetTimer()
	for b.Loop() {
		m.redraw()
	}
}

// TestALargeTeamScrollsInItsWindow: a team taller than the window scrolls
// around the cursor; the frame never outgrows the window, and says what it
// leaves out.
func TestALargeTeamScrollsInItsWindow(t *testing.T) {
	s := team()
	for i := range 95 {
		s.Agents = append(s.Agents, desk.AgentSummary{Member: desk.Member{Name: fmt.Sprintf("a%03d", i+1), State: conversation.Idle}})
	}
	m, _, _ := console(t, 120, 30, s)
	frame := m.View()
	if lines := strings.Count(frame, "\n") + 1; lines > 30 {
		t.Errorf("a frame of %d lines in a window of 30:\n%s", lines, frame)
	}
	if !strings.HasPrefix(frame, "switchboard · 100 agents") || !strings.Contains(frame, "more above, ") {
		t.Errorf("the frame lost its heading, or does not count what it leaves out:\n%s", frame)
	}
	for range 60 {
		press(m, "down")
	}
	if frame := m.View(); !strings.Contains(frame, "▸") || !strings.Contains(frame, "a056") {
		t.Errorf("the cursor's agent is not in view after 60 steps down:\n%s", frame)
	}
}

func TestAnAgentsWorktreeShowsItsChanges(t *testing.T) {
	s := team()
	s.Agents[0].Worktree = &desk.TreeSummary{Branch: "switchboard/" + s.Agents[0].Name}
	s.Agents[0].Worktree.Added, s.Agents[0].Worktree.Deleted = 42, 7
	m, _, _ := console(t, 140, 24, s)
	frame := m.View()
	if !strings.Contains(frame, "TREE") || !strings.Contains(frame, "+42/-7") {
		t.Errorf("the frame does not show the worktree's changes:\n%s", frame)
	}
	if plain, _, _ := console(t, 140, 24, team()); strings.Contains(plain.View(), "TREE") {
		t.Error("a team without worktrees has a TREE column")
	}
}

// TestARefusedWorktreeSaysSoNotNothingChanged: a tree whose .git leads
// elsewhere had no git run in it, so its changes are unknown, not none.
func TestARefusedWorktreeSaysSoNotNothingChanged(t *testing.T) {
	s := team()
	s.Agents[0].Worktree = &desk.TreeSummary{Branch: "switchboard/" + s.Agents[0].Name, Refused: "its .git points elsewhere"}
	m, _, _ := console(t, 140, 24, s)
	if frame := m.View(); !strings.Contains(frame, "REFUSED") || strings.Contains(frame, "+0/-0") {
		t.Errorf("the frame does not say the worktree was refused:\n%s", frame)
	}
}

// TestWhatEachAgentSpentTodayIsShown: the tokens and the cost estimate of
// an agent's day sit beside it; a team that spent nothing has no column;
// an agent at its usage limit or over its budget counts among those that
// need the person.
func TestWhatEachAgentSpentTodayIsShown(t *testing.T) {
	s := team()
	s.Agents[0].Today = &desk.AgentUsage{Tokens: clientusage.Tokens{In: 12000, Out: 6000, CacheRead: 200}, Cost: 0.052}
	m, _, _ := console(t, 160, 24, s)
	if frame := m.View(); !strings.Contains(frame, "TODAY") || !strings.Contains(frame, "18.2k $0.05") {
		t.Errorf("the frame does not show what the agent spent today:\n%s", frame)
	}
	if plain, _, _ := console(t, 160, 24, team()); strings.Contains(plain.View(), "TODAY") {
		t.Error("a team that spent nothing has a TODAY column")
	}
	for _, state := range []string{conversation.Limited, desk.StateOverBudget} {
		a := desk.AgentSummary{Member: desk.Member{State: state}}
		if !a.NeedsYou() {
			t.Errorf("an agent %s does not need the person", state)
		}
	}
}
