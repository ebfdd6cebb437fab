package main

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"switchboard/workspace"
)

// labelledPanes lists the agents named on the panes of the team's server.
func (tm *team) labelledPanes() []string {
	out, _ := exec.Command("tmux", "-L", tm.socket, "list-panes", "-a", "-F", "#{@agent}").CombinedOutput()
	return strings.Fields(string(out))
}

// TestCloseOrCancelDuringASpawnLeavesNoAgentUnseen closes, and then
// cancels, a helper as soon as it is registered, while its spawn is still
// opening its pane, 20 times each: a closed helper never keeps a pane, and
// a cancelled one is listed, cancelled; doctor finds no pane the team does
// not list.
func TestCloseOrCancelDuringASpawnLeavesNoAgentUnseen(t *testing.T) {
	tm := newTeam(t)
	tm.must("up", "-d", "--no-console", "--socket", tm.socket)
	ws := workspace.New(tm.root)
	registered := func(name string) func() bool {
		return func() bool {
			spawned, _ := ws.Spawned()
			_, ok := spawned[name]
			return ok
		}
	}
	for i := range 20 {
		name := fmt.Sprintf("closed%d", i)
		spawn := tm.startCode("spawn", "--as", "developer_agent", "--profile", "reviewer_agent", "--name", name)
		tm.waitFor(name+" registered", registered(name))
		tm.must("close", name, "--as", "developer_agent")
		spawn()
		if slices.Contains(tm.labelledPanes(), name) {
			t.Fatalf("round %d: %s was closed during its spawn, and its pane runs on: %v", i, name, tm.labelledPanes())
		}
		if strings.Contains(tm.must("agents"), name) {
			t.Fatalf("round %d: agents lists %s after its close", i, name)
		}
	}
	for i := range 20 {
		name := fmt.Sprintf("cancelled%d", i)
		spawn := tm.startCode("spawn", "--as", "developer_agent", "--profile", "reviewer_agent", "--name", name)
		tm.waitFor(name+" registered", registered(name))
		tm.must("cancel", name, "--as", "developer_agent", "--reason", "changed my mind")
		if code := spawn(); code != 0 {
			continue // the spawn failed: nothing of it may run
		}
		spawned, _ := ws.Spawned()
		if spawned[name].Cancelled == nil {
			t.Fatalf("round %d: %s was cancelled during its spawn, and the registry forgot it", i, name)
		}
	}
	if out, _ := tm.switchboard("doctor"); strings.Contains(out, "which the team does not list") {
		t.Errorf("doctor found panes of no agent:\n%s", out)
	}
	listed := tm.must("agents")
	for _, agent := range tm.labelledPanes() {
		if !strings.Contains(listed, agent) {
			t.Errorf("pane of %s runs, and agents does not list it:\n%s", agent, listed)
		}
	}
}

// TestParallelSpawnsEachGetAName: 20 spawns at once from one profile,
// without --name, all succeed, with the names P-1 to P-20.
func TestParallelSpawnsEachGetAName(t *testing.T) {
	tm := newTeam(t)
	tm.must("up", "-d", "--no-console", "--socket", tm.socket)
	var wg sync.WaitGroup
	codes := make([]int, 20)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, codes[i] = tm.switchboard("spawn", "--as", "developer_agent", "--profile", "reviewer_agent")
		}()
	}
	wg.Wait()
	spawned, _ := workspace.New(tm.root).Spawned()
	for i, code := range codes {
		if code != 0 {
			t.Errorf("spawn %d exited %d", i, code)
		}
		if name := fmt.Sprintf("reviewer_agent-%d", i+1); !slices.Contains(tm.labelledPanes(), name) || spawned[name].Parent != "developer_agent" {
			t.Errorf("%s is not spawned under developer_agent in a pane of its own", name)
		}
	}
}
