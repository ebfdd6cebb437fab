package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"switchboard/conversation"
)

// TestAnAgentWithoutHooksIsBusyWhileItPrints: an agent whose program has
// no hooks is busy while its pane prints and idle once it stops, told by
// what the pane prints, not by reading its screen; a program that prints
// again is busy again.
func TestAnAgentWithoutHooksIsBusyWhileItPrints(t *testing.T) {
	tm := newTeam(t)
	t.Parallel() // a team of its own, and no timing checked
	const agent = "developer_agent"
	// For each line it reads, the program works for three seconds, saying
	// so on its screen, then writes that it is done.
	done := filepath.Join(tm.root, "done")
	script := `while read line; do i=0; while [ $i -lt 15 ]; do echo "working $i"; sleep 0.2; i=$((i+1)); done; echo "$line" >> ` + done + `; done`
	writeTestFile(t, filepath.Join(tm.root, "agents", agent+".yaml"), fmt.Sprintf("display_name: Developer Agent\nkind: generic\ncommand: [sh, -c, %q]\n", script))
	tm.must("up", "-d", "--no-console", "--socket", tm.socket)
	tm.waitIdle(agent)
	pane := paneOf(t, tm, agent)
	for _, line := range []string{"first", "second"} {
		idleBefore := tm.state(agent).Since
		started := time.Now()
		if out, err := exec.Command("tmux", "-L", tm.socket, "send-keys", "-t", pane, line, "Enter").CombinedOutput(); err != nil {
			t.Fatalf("type into the pane: %v\n%s", err, out)
		}
		tm.waitFor(agent+" to be busy while it prints", func() bool { return tm.state(agent).State == conversation.Busy })
		busyAfter := time.Since(started)
		tm.waitFor(agent+" to be done", func() bool { data, _ := os.ReadFile(done); return strings.HasSuffix(string(data), line+"\n") })
		stopped := time.Now()
		tm.waitFor(agent+" to be idle again", func() bool {
			st := tm.state(agent)
			return st.State == conversation.Idle && st.Since.After(idleBefore)
		})
		t.Logf("%s: busy %s after it began to print, idle %s after it stopped", line, busyAfter.Round(time.Millisecond), time.Since(stopped).Round(time.Millisecond))
	}
}
