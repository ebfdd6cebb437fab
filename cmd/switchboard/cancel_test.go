package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestCancelStopsASubtreeLeavesFirst: the developer spawns a helper, which
// spawns one of its own, and waits for the first. The tester may not cancel
// them; the developer cancels its helper: both get the notice, the deeper
// one first, and the developer's wait ends at once with exit 1. A parent
// interrupts its own helper without interrupt rights.
func TestCancelStopsASubtreeLeavesFirst(t *testing.T) {
	tm := newTeam(t)
	tm.must("up", "-d", "--no-console", "--socket", tm.socket)
	tm.waitIdle("developer_agent", "reviewer_agent", "tester_agent")
	tm.must("spawn", "--as", "developer_agent", "--profile", "reviewer_agent", "--name", "h1")
	tm.must("spawn", "--as", "h1", "--profile", "reviewer_agent", "--name", "h2")

	if out, code := tm.switchboard("interrupt", "h2", "--as", "h1", "--reason", "Hold on"); code != 0 {
		t.Errorf("a parent interrupting its own helper: exit %d: %s", code, out)
	}
	if out, code := tm.switchboard("cancel", "h1", "--as", "tester_agent", "--reason", "mine now"); code != exitRefused || !strings.Contains(out, "tester_agent may not cancel h1") {
		t.Errorf("the tester cancelling the developer's helper: exit %d: %s; want 3, refused", code, out)
	}

	waited := make(chan struct {
		out  string
		code int
	}, 1)
	go func() {
		out, code := tm.switchboard("wait", "h1", "--as", "developer_agent", "--timeout", "60s")
		waited <- struct {
			out  string
			code int
		}{out, code}
	}()
	if got := tm.must("cancel", "h1", "--as", "developer_agent", "--reason", "the plan changed"); got != "cancelled h2, h1" {
		t.Errorf("cancel printed %q; want the helpers, the deeper first", got)
	}
	w := <-waited
	if w.code != 1 || !strings.Contains(w.out, "h1 was cancelled by developer_agent (the plan changed) before it sent you a response") {
		t.Errorf("the developer's wait: exit %d: %s; want 1, saying it was cancelled", w.code, w.out)
	}
	// ESC, then the notice, in each pane: the interrupt from its parent
	// first for h2, then the cancel.
	for _, agent := range []string{"h2", "h1"} {
		id := tm.waitUnread(agent, "[CANCELLED] by developer_agent: the plan changed")
		want := "\x1b[INTERRUPT] [FROM: Developer Agent] [CANCELLED] by developer_agent: the plan changed (switchboard read " + id + ")\n"
		tm.waitFor("the cancel typed into "+agent+"'s pane", func() bool { return strings.HasSuffix(tm.received(agent), want) })
	}
	if got := tm.received("h2"); !strings.HasPrefix(got, "\x1b[INTERRUPT] [FROM: H1] Hold on") {
		t.Errorf("h2's pane got %q; want its parent's interrupt first, with ESC", got)
	}
	// agents says so, until they are closed.
	for _, agent := range []string{"h1", "h2"} {
		if team := tm.must("agents"); !strings.Contains(strings.Join(strings.Fields(team), " "), agent+" ") || !regexp.MustCompile(`(?m)`+agent+`\s.*\bcancelled\b`).MatchString(team) {
			t.Errorf("agents does not show %s cancelled:\n%s", agent, team)
		}
	}
	log := tm.must("log")
	words := strings.Join(strings.Fields(log), " ") // the columns' padding aside
	deeper, helper := strings.Index(words, "developer_agent → h2 [CANCELLED]"), strings.Index(words, "developer_agent → h1 [CANCELLED]")
	if deeper < 0 || helper < 0 || deeper > helper {
		t.Errorf("the log does not show h2 cancelled, then h1:\n%s", log)
	}
}
