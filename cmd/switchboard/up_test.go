package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"switchboard/conversation"
	"switchboard/workspace"
)

// TestAnAgentThatExitsAtOnceLeavesTheTeamUp: the first agent's program
// ends as it starts (a typo in its command). up still brings the team up,
// says which agent exited, with what status and what it printed, and where
// to fix it; the other agents run, and the master reports it exited.
func TestAnAgentThatExitsAtOnceLeavesTheTeamUp(t *testing.T) {
	tm := newTeam(t)
	writeTestFile(t, filepath.Join(tm.root, "agents", "developer_agent.yaml"),
		"display_name: Developer Agent\nkind: generic\ncommand: [\"sh\", \"-c\", \"echo 'claudee: command not found' >&2; exit 127\"]\n")
	out, code := tm.switchboard("up", "-d", "--no-console", "--socket", tm.socket)
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
	tm.waitFor("developer_agent to be exited", func() bool { return tm.state("developer_agent").State == conversation.Exited })
}

// TestDoctorNamesAnAgentWhoseProgramExited: doctor says what to fix for an
// agent that is down, whatever its kind, and exits 1.
func TestDoctorNamesAnAgentWhoseProgramExited(t *testing.T) {
	tm := newTeam(t)
	writeTestFile(t, filepath.Join(tm.root, "agents", "developer_agent.yaml"),
		"display_name: Developer Agent\nkind: generic\ncommand: [\"false\"]\n")
	tm.must("up", "-d", "--no-console", "--socket", tm.socket)
	tm.waitFor("developer_agent to be exited", func() bool { return tm.state("developer_agent").State == conversation.Exited })
	out, code := tm.switchboard("doctor")
	want := "its program exited with status 1: look at its pane"
	if code != 1 || !strings.Contains(out, want) || !strings.Contains(out, "fix the command in agents/developer_agent.yaml") {
		t.Errorf("doctor: exit %d\n%s\nwant exit 1 and %q", code, out, want)
	}
}

// TestUpAtOnceBringsUpOneTeam runs two, then five, up -d at once in one
// workspace: one brings the team up, the others wait for it and say it is
// up; every one exits 0, and none prints a tmux command line or a process's
// exit status. The team is there once: one session, one master, each
// agent's pane once.
func TestUpAtOnceBringsUpOneTeam(t *testing.T) {
	for _, n := range []int{2, 5} {
		t.Run(fmt.Sprintf("%d at once", n), func(t *testing.T) {
			tm := newTeam(t)
			outs := make([]string, n)
			codes := make([]int, n)
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() { outs[i], codes[i], errs[i] = tm.run("up", "-d", "--no-console", "--socket", tm.socket) })
			}
			wg.Wait()
			brought, found := 0, 0
			for i := range n {
				if errs[i] != nil {
					t.Fatal(errs[i])
				}
				if codes[i] != 0 {
					t.Errorf("up %d: exit %d\n%s", i+1, codes[i], outs[i])
				}
				for _, raw := range []string{"exit status", "tmux -L", "-f /dev/null", "new-session", "duplicate session", "server exited"} {
					if strings.Contains(outs[i], raw) {
						t.Errorf("up %d printed %q:\n%s", i+1, raw, outs[i])
					}
				}
				brought += strings.Count(outs[i], "team up in ")
				found += strings.Count(outs[i], "the team is already up")
			}
			if brought != 1 || found != n-1 {
				t.Errorf("%d up brought the team up and %d found it up; want 1 and %d:\n%s", brought, found, n-1, strings.Join(outs, "\n---\n"))
			}

			sessions, err := exec.Command("tmux", "-L", tm.socket, "list-sessions", "-F", "#{session_name}").Output()
			if err != nil || strings.TrimSpace(string(sessions)) != "switchboard" {
				t.Errorf("sessions: %q, %v; want switchboard alone", sessions, err)
			}
			panes, err := exec.Command("tmux", "-L", tm.socket, "list-panes", "-a", "-F", "#{window_name} #{@agent} #{pane_dead}").Output()
			if err != nil {
				t.Fatal(err)
			}
			count := map[string]int{}
			for _, line := range strings.Split(strings.TrimSpace(string(panes)), "\n") {
				f := strings.Fields(line)
				switch {
				case f[0] == "master" && f[len(f)-1] == "0":
					count["the master window"]++
				case len(f) == 3:
					count[f[1]]++
				}
			}
			for _, one := range []string{"the master window", "master_agent", "developer_agent", "reviewer_agent", "tester_agent"} {
				if count[one] != 1 {
					t.Errorf("%s %d times; want once:\n%s", one, count[one], panes)
				}
			}
			if _, running := workspace.New(tm.root).MasterRunning(); !running {
				t.Errorf("no master runs")
			}
			tm.waitIdle("master_agent", "developer_agent", "reviewer_agent", "tester_agent")
		})
	}
}
