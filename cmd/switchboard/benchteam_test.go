package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"testing"

	"switchboard/bench"
)

// TestBenchMeasuresATeamAtRest runs the team part of bench with small
// numbers, as a person would, and reads its figures: a team came up, rested,
// and one notice reached its agent.
func TestBenchMeasuresATeamAtRest(t *testing.T) {
	newTeam(t)   // skips without tmux, and with -short
	t.Parallel() // its teams have sockets and folders of their own; its figures are not checked
	res := benchJSON(t, "--only", "team", "--quick", "--team-agents", "4")
	team := res.Team
	if team == nil || team.Agents != 4 || team.Up <= 0 || team.UpFloor <= 0 || team.Notice <= 0 || team.NoticeFloor <= 0 || team.MasterRSS <= 0 {
		t.Fatalf("team figures: %+v", team)
	}
	for _, row := range []string{bench.RowTeamNotice, bench.RowTeamRestHookless} {
		if _, ok := res.Check(row); !ok {
			t.Errorf("no check of %s: %+v", row, res.Checks)
		}
	}
}

// benchJSON runs switchboard bench with args and --json in a folder of its
// own, as a person would, and reads what it printed.
func benchJSON(t *testing.T, args ...string) bench.Result {
	t.Helper()
	cmd := exec.Command("switchboard", append(append([]string{"bench"}, args...), "--json")...)
	cmd.Dir = t.TempDir()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bench: %v\n%s", err, stderr.String())
	}
	var res bench.Result
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("bench --json printed %q: %v", out, err)
	}
	return res
}
