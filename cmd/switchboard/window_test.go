package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"switchboard/workspace"
)

// TestAWindowThePersonOpensIsTheOperators: a window the person opens in
// the team's session (Ctrl-b c) has switchboard on its PATH and the
// workspace known, and no agent's name (nor the first agent's note): the
// person acts as the operator there, not as the first agent.
func TestAWindowThePersonOpensIsTheOperators(t *testing.T) {
	tm := newTeam(t)
	tm.must("up", "-d", "--no-console", "--socket", tm.socket)
	tm.waitIdle("developer_agent")
	probe := filepath.Join(tm.root, "probe")
	if out, err := exec.Command("tmux", "-L", tm.socket, "new-window", "-d", "-t", "=switchboard:", "-n", "person").CombinedOutput(); err != nil {
		t.Fatalf("open a window: %v\n%s", err, out)
	}
	line := `printf '%s|%s|:%s:\n' "$SWITCHBOARD_AGENT" "$SWITCHBOARD_ROOT" "$PATH" > ` + probe
	if out, err := exec.Command("tmux", "-L", tm.socket, "send-keys", "-t", "=switchboard:person", line, "Enter").CombinedOutput(); err != nil {
		t.Fatalf("type into it: %v\n%s", err, out)
	}
	var got string
	tm.waitFor("the window's answer", func() bool {
		data, _ := os.ReadFile(probe)
		got = strings.TrimSpace(string(data))
		return got != ""
	})
	// The person's own start-up files may put another switchboard first;
	// the team's is on the PATH in any case.
	want := "|" + tm.root + "|"
	if !strings.HasPrefix(got, want) || !strings.Contains(got, ":"+workspace.New(tm.root).BinDir()+":") {
		t.Errorf("the person's window has agent|root|:PATH: = %q; want %q and %s on the PATH", got, want+":...:", workspace.New(tm.root).BinDir())
	}
}
