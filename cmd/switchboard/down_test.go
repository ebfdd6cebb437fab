package main

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"switchboard/workspace"
)

// TestDownPurgeTellsWhoIsAttachedThatTheFolderIsGone attaches a terminal to
// a demo's team, then deletes the demo with down --purge from elsewhere:
// the attached terminal says the folder was deleted, and names it, instead
// of saying that the mail is kept.
func TestDownPurgeTellsWhoIsAttachedThatTheFolderIsGone(t *testing.T) {
	tm := newTeam(t)
	writeTestFile(t, workspace.New(tm.root).DemoMarker(), "made by switchboard up --demo: switchboard down --purge deletes this folder\n")
	tm.must("up", "-d", "--no-console", "--socket", tm.socket)

	// The person's terminal: a pane of a tmux server of its own.
	outer := tm.socket + "-terminal"
	outerCmd := func(args ...string) *exec.Cmd {
		cmd := exec.Command("tmux", append([]string{"-L", outer, "-f", "/dev/null"}, args...)...)
		cmd.Env = append(os.Environ(), "TMUX=")
		return cmd
	}
	t.Cleanup(func() { outerCmd("kill-server").Run() })
	terminal := []string{"env", "SWITCHBOARD_ROOT=" + tm.root, "SWITCHBOARD_AGENT=", "sh", "-c", "switchboard attach; echo attach ended; exec sleep 600"}
	if out, err := outerCmd(append([]string{"new-session", "-d", "-s", "terminal", "-x", "160", "-y", "40"}, terminal...)...).CombinedOutput(); err != nil {
		t.Fatalf("start the terminal: %v: %s", err, out)
	}
	tm.waitFor("the terminal to be attached to the team", func() bool {
		// The master's control-mode client, which follows the panes, is
		// not the person's.
		clients, _ := exec.Command("tmux", "-L", tm.socket, "list-clients", "-F", "#{client_control_mode}").Output()
		return slices.Contains(strings.Fields(string(clients)), "0")
	})

	if out := tm.must("down", "--purge"); !strings.Contains(out, "deleted the demo folder "+tm.root) {
		t.Errorf("down --purge said:\n%s", out)
	}
	screen := func() string {
		out, _ := outerCmd("capture-pane", "-p", "-J", "-S", "-100", "-t", "=terminal:").Output()
		return string(out)
	}
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(screen(), "attach ended") {
		if time.Now().After(deadline) {
			t.Fatalf("the attachment never ended; the terminal shows:\n%s", screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
	s := screen()
	if want := "the team was stopped and its folder " + tm.root + " deleted"; !strings.Contains(s, want) || strings.Contains(s, "mail is kept") {
		t.Errorf("the attached terminal shows:\n%s\nwant it to say %q, and nothing of mail kept", s, want)
	}
	if _, err := os.Stat(tm.root); !os.IsNotExist(err) {
		t.Errorf("after down --purge, the folder is still there (%v)", err)
	}
}
