package main

import (
	"path/filepath"
	"strings"
	"testing"

	"switchboard/mailbox"
)

// TestAnAgentThatExitsAtOnceLeavesTheTeamUp: the first agent's program
// ends as it starts (a typo in its command). up still brings the team up,
// says which agent exited, with what status and what it printed, and where
// to fix it; the other agents run, and the master reports it exited.
func TestAnAgentThatExitsAtOnceLeavesTheTeamUp(t *testing.T) {
	tm := newTeam(t)
	writeTestFile(t, filepath.Join(tm.root, "agents", "developer_agent.yaml"),
		"display_name: Developer Agent\nkind: generic\ncommand: [\"sh\", \"-c\", \"echo 'claudee: command not found' >&2; exit 127\"]\n")
	out, code := tm.switchboard("up", "-d", "--socket", tm.socket)
	if code != 0 {
		t.Fatalf("up: exit %d\n%s", code, out)
	}
	for _, want := range []string{
		"developer_agent exited with status 127 as it started; it printed:\n    claudee: command not found\n",
		"fix the command in agents/developer_agent.yaml, then restart the team with `switchboard down` and `switchboard up`",
		"team up in ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("up said:\n%s\nwant it to say %q", out, want)
		}
	}
	tm.waitIdle("reviewer_agent", "master_agent")
	tm.waitFor("developer_agent to be exited", func() bool { return tm.state("developer_agent").State == mailbox.StateExited })
}

// TestDoctorNamesAnAgentWhoseProgramExited: doctor says what to fix for an
// agent that is down, whatever its kind, and exits 1.
func TestDoctorNamesAnAgentWhoseProgramExited(t *testing.T) {
	tm := newTeam(t)
	writeTestFile(t, filepath.Join(tm.root, "agents", "developer_agent.yaml"),
		"display_name: Developer Agent\nkind: generic\ncommand: [\"false\"]\n")
	tm.must("up", "-d", "--socket", tm.socket)
	tm.waitFor("developer_agent to be exited", func() bool { return tm.state("developer_agent").State == mailbox.StateExited })
	out, code := tm.switchboard("doctor")
	want := "its program exited with status 1: look at its pane"
	if code != 1 || !strings.Contains(out, want) || !strings.Contains(out, "fix the command in agents/developer_agent.yaml") {
		t.Errorf("doctor: exit %d\n%s\nwant exit 1 and %q", code, out, want)
	}
}
