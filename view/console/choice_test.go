package console

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"switchboard/conversation"
	"switchboard/desk"
	"switchboard/mailbox"
)

// calmTeam is a team in which no one needs the person: the agents in the
// team's order, tester_agent fifth.
func calmTeam() *desk.Snapshot {
	members := []desk.Member{
		{Name: "master_agent", State: conversation.Idle},
		{Name: "developer_agent", State: conversation.Busy},
		{Name: "reviewer_agent", State: conversation.Busy},
		{Name: "tester_agent", State: conversation.Busy},
		{Name: "reviewer_agent-1", State: conversation.Busy, Parent: "developer_agent"},
	}
	s := desk.SnapshotOf(at, members, nil, nil)
	s.Status = "normal"
	return s
}

// without is s less the agent named name, as after it was closed.
func without(s *desk.Snapshot, name string) *desk.Snapshot {
	out := *s
	out.Agents = nil
	for _, a := range s.Agents {
		if a.Name != name {
			out.Agents = append(out.Agents, a)
		}
	}
	return &out
}

// urgent is s once the agent named name is idle with urgent mail: it
// needs the person, and the team sorts it first.
func urgent(s *desk.Snapshot, name string) *desk.Snapshot {
	out := *s
	var members []desk.Member
	for _, a := range s.Agents {
		if a.Name == name {
			a.State, a.Urgent = conversation.Idle, 1
		}
		members = append(members, a.Member)
	}
	out.Agents = desk.SnapshotOf(s.At, members, nil, nil).Agents
	return &out
}

// TestTheKeysActOnTheChosenAgentAfterTheTeamReSorts: the person chooses
// tester_agent, interrupts it, and the team sorts it first (it needs
// them now): the cursor goes with it, and x and c act on tester_agent,
// not on the agent that took its row.
func TestTheKeysActOnTheChosenAgentAfterTheTeamReSorts(t *testing.T) {
	calm := calmTeam()
	if calm.Agents[4].Name != "tester_agent" {
		t.Fatalf("the calm team's fifth row is %s; want tester_agent", calm.Agents[4].Name)
	}
	resorted := urgent(calm, "tester_agent")
	if resorted.Agents[0].Name != "tester_agent" || resorted.Agents[4].Name == "tester_agent" {
		t.Fatalf("the team did not sort tester_agent first: %v", agentKeys(resorted))
	}
	m, acts, _ := console(t, 140, 30, calm, resorted)
	press(m, "down", "down", "down", "down", "i", "s", "t", "o", "p", "enter")
	if len(acts.done) != 1 || acts.done[0] != "interrupt tester_agent: stop" {
		t.Fatalf("actions: %q", acts.done)
	}
	// The interrupt's doneMsg read the team again: tester_agent leads.
	if frame := m.View(); !strings.Contains(frame, "▸ ! tester_agent") {
		t.Errorf("the cursor did not go with tester_agent to its new row:\n%s", frame)
	}
	press(m, "c", "w", "h", "y", "enter", "x", "y", "e", "s", "enter")
	if want := []string{"interrupt tester_agent: stop", "cancel tester_agent: why", "close tester_agent"}; strings.Join(acts.done, "\n") != strings.Join(want, "\n") {
		t.Errorf("after the re-sort, c and x acted on %q; want %q", acts.done, want)
	}
}

// TestAChosenAgentThatLeavesIsNotReplaced: when the agent chosen is
// closed, the console says so where it stood, marks no other agent, and
// each key that acts on an agent does nothing but say why, until the
// person chooses another.
func TestAChosenAgentThatLeavesIsNotReplaced(t *testing.T) {
	calm := calmTeam()
	m, acts, _ := console(t, 140, 30, calm, without(calm, "tester_agent"))
	press(m, "down", "down", "down", "down", "x", "y", "e", "s", "enter")
	if len(acts.done) != 1 || acts.done[0] != "close tester_agent" {
		t.Fatalf("actions: %q", acts.done)
	}
	frame := m.View()
	if !strings.Contains(frame, "tester_agent is no longer in the team") {
		t.Errorf("the console does not say that the agent chosen left:\n%s", frame)
	}
	if strings.Contains(strings.Split(frame, "  LOG")[0], "▸") {
		t.Errorf("another agent is marked chosen after tester_agent left:\n%s", frame)
	}
	for _, key := range []string{"x", "c", "i", "s", "g", "f"} {
		m.said = ""
		press(m, key)
		if m.prompt != nil || len(acts.done) != 1 || !strings.Contains(m.said, "tester_agent is no longer in the team") {
			t.Errorf("%s with no agent chosen: prompt %v, actions %q, said %q; want nothing done, and why", key, m.prompt != nil, acts.done, m.said)
		}
		m.prompt = nil
	}
	// Down chooses the agent nearest where tester_agent stood, the last.
	press(m, "down", "g")
	if last := acts.done[len(acts.done)-1]; last != "jump reviewer_agent" {
		t.Errorf("after down, g acted as %q; want jump reviewer_agent (agents %v)", last, agentKeys(m.snap))
	}
}

// TestAQuestionChosenThatIsAnsweredElsewhereIsNotReplaced: the question
// chosen is answered elsewhere; a later one takes its row, and a does
// not allow it unseen.
func TestAQuestionChosenThatIsAnsweredElsewhereIsNotReplaced(t *testing.T) {
	two := team()
	later := vouchedPrompt(6, "developer_agent", []string{mailbox.Operator}, "rm -rf build", 5*time.Second)
	two.Log = append(two.Log, later)
	two.Requests = desk.SnapshotOf(two.At, nil, two.Log, nil).Requests
	answered := *two
	answered.Requests = answered.Requests[1:]
	m, acts, _ := console(t, 140, 30, two, &answered)
	press(m, "tab")
	_, cmd := m.Update(changedMsg{})
	run(m, cmd)
	press(m, "a")
	if len(acts.done) != 0 || !strings.Contains(m.said, "#4 no longer waits") {
		t.Errorf("a after #4 was answered elsewhere: actions %q, said %q; want nothing done, and why", acts.done, m.said)
	}
	press(m, "down", "a")
	if len(acts.done) != 1 || acts.done[0] != "answer "+later.Message.ID+" allow" {
		t.Errorf("after down, a acted as %q; want #6 allowed", acts.done)
	}
}

// closeCheck stands for the desk's check: only a helper (a name with a
// dash) may be closed. It notes each agent it checks.
func closeCheck(checked *[]string) func(string) error {
	return func(agent string) error {
		*checked = append(*checked, agent)
		if !strings.Contains(agent, "-") {
			return fmt.Errorf("%s %w, so it cannot be closed alone: the team is stopped as a whole", agent, errors.New("was not spawned at run time"))
		}
		return nil
	}
}

// TestXOnAnAgentOfTheRulesSaysAtOnceItCannotBeClosed: x on an agent that
// was not spawned says why it cannot be closed, and asks for no "yes";
// on a helper it asks.
func TestXOnAnAgentOfTheRulesSaysAtOnceItCannotBeClosed(t *testing.T) {
	m, acts, _ := console(t, 140, 30, calmTeam())
	var checked []string
	m.cfg.MayClose = closeCheck(&checked)
	press(m, "x")
	if m.prompt != nil {
		t.Errorf("x on master_agent asks %q before it says it cannot be closed", m.prompt.label)
	}
	if !strings.Contains(m.View(), "cannot close: master_agent was not spawned at run time") || len(acts.done) != 0 {
		t.Errorf("x on master_agent: actions %q, frame:\n%s", acts.done, m.View())
	}
	press(m, "down", "down", "x")
	if len(checked) != 2 || checked[1] != "reviewer_agent-1" || m.prompt == nil || !strings.Contains(m.prompt.label, "close reviewer_agent-1") {
		t.Fatalf("x on a helper: checked %q, prompt %v", checked, m.prompt)
	}
	press(m, "y", "e", "s", "enter")
	if len(acts.done) != 1 || acts.done[0] != "close reviewer_agent-1" {
		t.Errorf("actions: %q", acts.done)
	}
}

// TestKeysTypedWhileACloseIsCheckedDoNothing: between x and its check's
// answer no key acts, and esc gives the close up.
func TestKeysTypedWhileACloseIsCheckedDoNothing(t *testing.T) {
	m, acts, _ := console(t, 140, 30, calmTeam())
	var checked []string
	m.cfg.MayClose = closeCheck(&checked)
	press(m, "down", "down")
	_, check := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("x")})
	if !strings.Contains(m.View(), "checking whether reviewer_agent-1 can be closed") {
		t.Errorf("the console does not say it checks:\n%s", m.View())
	}
	press(m, "s", "down", "esc")
	run(m, check)
	if m.prompt != nil || len(acts.done) != 0 || m.agent.chosen() != "reviewer_agent-1" {
		t.Errorf("keys acted while the close was checked, or the close given up asked: prompt %v, actions %q, chosen %q", m.prompt != nil, acts.done, m.agent.chosen())
	}
}

// TestTheFrameForAScriptIsPlain: a frame for a script has every column,
// every agent of a large team, no cursor and no key help, and no padding
// at its lines' ends.
func TestTheFrameForAScriptIsPlain(t *testing.T) {
	s := team()
	s.Agents[0].Worktree = &desk.TreeSummary{Branch: "switchboard/" + s.Agents[0].Name}
	m := New(Config{Read: func(context.Context) (*desk.Snapshot, error) { return s, nil }})
	frame, err := m.Frame(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "team-once", frame)
	for _, head := range []string{"NEW", "URG", "TREE", "TASK", "LAST IN", "LAST OUT", "LOCKS"} {
		if !strings.Contains(frame, head) {
			t.Errorf("the frame has no %s column:\n%s", head, frame)
		}
	}
	for _, keysOrCursor := range []string{"hidden", "▸", "↑↓", "q quit", "a allow"} {
		if strings.Contains(frame, keysOrCursor) {
			t.Errorf("the frame for a script holds %q:\n%s", keysOrCursor, frame)
		}
	}
	for _, line := range strings.Split(frame, "\n") {
		if strings.HasSuffix(line, " ") {
			t.Errorf("a line padded at its end: %q", line)
		}
	}
	for i := range 95 {
		s.Agents = append(s.Agents, desk.AgentSummary{Member: desk.Member{Name: fmt.Sprintf("a%03d", i+1), State: conversation.Idle}})
	}
	if frame, _ := New(Config{Read: m.cfg.Read}).Frame(context.Background(), 0); !strings.Contains(frame, "a001") || !strings.Contains(frame, "a095") || strings.Contains(frame, "more above") {
		t.Errorf("the frame of a team of 100 leaves agents out:\n%s", frame)
	}
}
