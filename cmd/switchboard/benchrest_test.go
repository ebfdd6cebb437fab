package main

import (
	"testing"

	"switchboard/bench"
	"switchboard/internal/tmux"
)

// TestBenchSumsEveryProcessOfATeamAtRest runs the rest part of bench with
// a team of 2 for a second, as a person would, and reads its figures: each
// team came up with its console, its master and an MCP server per agent,
// all counted, beside tmux alone; each row has its target. (Its figures
// are not checked: a second of a busy test machine says nothing.)
func TestBenchSumsEveryProcessOfATeamAtRest(t *testing.T) {
	if !tmux.Installed() {
		t.Skip("tmux is not installed: install it (apt-get install -y tmux) to run the bench's teams")
	}
	if testing.Short() {
		t.Skip("starts teams in tmux; skipped with -short")
	}
	t.Parallel() // its teams have sockets and folders of their own
	res := benchJSON(t, "--only", "rest", "--team-agents", "2", "--team-idle", "1s")
	rest := res.Rest
	if rest == nil || rest.Agents != 2 || rest.MCP.Servers != bench.DefaultRestMCPs {
		t.Fatalf("rest figures: %+v", rest)
	}
	// The tmux server, 2 agents' programs, the master and its control
	// client, the console and 2 MCP servers at least.
	for name, team := range map[string]bench.RestTeam{"without hooks": rest.Hookless, "with hooks": rest.Hooks} {
		if team.Processes < 8 {
			t.Errorf("the team %s: %d processes summed; want its server, programs, master, console and MCP servers", name, team.Processes)
		}
	}
	for _, row := range []string{bench.RowRestHookless, bench.RowRestHooks, bench.RowRestMCP} {
		if _, ok := res.Check(row); !ok {
			t.Errorf("no check of %s: %+v", row, res.Checks)
		}
	}
}
