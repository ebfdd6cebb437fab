package bench

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// TestAProcessThatEndsInTheWindowIsCountedOnce: a master's tmux call that
// ran and ended within the window is counted once, by the master that
// waited for it; a process outside the team is not counted.
func TestAProcessThatEndsInTheWindowIsCountedOnce(t *testing.T) {
	ms := time.Millisecond
	before := procTable{
		1:  {parent: 0, cpu: 100 * ms}, // the tmux server
		2:  {parent: 1, cpu: 50 * ms},  // the master, in a pane
		3:  {parent: 2, cpu: 10 * ms},  // its tmux call, under way
		4:  {parent: 1, cpu: 0},        // an agent's program
		99: {parent: 0, cpu: 500 * ms}, // another program of the machine
	}
	after := procTable{
		1:  {parent: 0, cpu: 110 * ms},
		2:  {parent: 1, cpu: 50*ms + 5*ms + 30*ms}, // 5 ms of its own, and the call's 30 ms once it waited for it
		4:  {parent: 1, cpu: 0},
		5:  {parent: 2, cpu: 20 * ms}, // another call, begun within the window
		99: {parent: 0, cpu: 900 * ms},
	}
	for _, c := range []struct {
		name string
		part part
		want time.Duration
	}{
		{"the team", part{roots: []int{1}}, 10*ms + 5*ms + 20*ms + 20*ms},
		{"the master", part{roots: []int{2}}, 5*ms + 20*ms + 20*ms},
		{"the server alone", part{roots: []int{1}, alone: true}, 10 * ms},
	} {
		if got := cpuBetween(before, after, c.part); got != c.want {
			t.Errorf("%s used %s; want %s", c.name, got, c.want)
		}
	}
}

// TestATeamAtRestIsCheckedAboveTmuxAlone: the target of a team at rest is
// what it costs beyond tmux alone with the same panes, measured in the
// same run; an MCP server is held to its own.
func TestATeamAtRestIsCheckedAboveTmuxAlone(t *testing.T) {
	r := &Result{}
	r.AddRest(&RestResult{
		Hookless: RestTeam{Floor: 0.5, Team: 0.75},
		Hooks:    RestTeam{Floor: 0.1, Team: 0.45},
		MCP:      RestMCP{Servers: 20, Each: 0.02, Floor: 0.001},
	})
	for row, want := range map[string]bool{RowRestHookless: true, RowRestHooks: false, RowRestMCP: false} {
		c, ok := r.Check(row)
		if !ok || c.Pass != want {
			t.Errorf("%s: %+v (checked %v); want pass %v", row, c, ok, want)
		}
	}
}

// TestARunTimeIsToldFinerThanATick: the CPU time of a process that wakes
// for microseconds is told to the nanosecond, not in /proc's ticks of 10
// ms, which would round an idle MCP server's minute to nothing.
func TestARunTimeIsToldFinerThanATick(t *testing.T) {
	self := os.Getpid()
	if _, err := os.Stat(fmt.Sprintf("/proc/%d/task/%d/schedstat", self, self)); err != nil {
		t.Skipf("the scheduler tells no run times here: %v", err)
	}
	procs, err := readProcs()
	if err != nil {
		t.Fatal(err)
	}
	procs.sharpen([]int{self})
	if ran := procs[self].cpu; ran <= 0 || ran%clockTick == 0 {
		t.Errorf("this process ran %s: counted in ticks of %s, not to the nanosecond", ran, clockTick)
	}
}
