package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"switchboard/internal/tmux"
	"switchboard/internal/watch"
	"switchboard/lifecycle"
	"switchboard/mailbox"
	"switchboard/workspace"
)

// TestDemoPlaysTheFlows runs up --demo at full speed and checks that the
// demo did what it narrates: the flows in the log, the blocked attempt,
// the ask answered, and the summary on screen.
func TestDemoPlaysTheFlows(t *testing.T) {
	if !tmux.Installed() {
		t.Skip("tmux is not installed: install it (apt-get install -y tmux) to run the demo test")
	}
	if testing.Short() {
		t.Skip("plays the demo in tmux; skipped with -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("the demo's shells are bash")
	}
	dir := t.TempDir()
	tm := &team{t: t, root: dir, socket: fmt.Sprintf("sbdemo-%d-%d", os.Getpid(), time.Now().UnixNano()%100000), store: mailbox.NewStore(dir)}
	// The demo's shells read the user's ~/.bashrc: a home of the test's own
	// keeps the machine's start-up files (and their locks) out of it.
	tm.env = append(os.Environ(), "HOME="+t.TempDir())
	t.Cleanup(func() {
		tm.switchboard("down", "--root", dir)
		exec.Command("tmux", "-L", tm.socket, "kill-server").Run()
	})
	out := tm.must("up", "--demo", "--demo-dir", dir, "-d", "--demo-pause", "10ms", "--socket", tm.socket)
	if !strings.Contains(out, "attach --root "+dir) || !strings.Contains(out, "stop it and delete its folder with `switchboard down --purge --root "+dir+"`") {
		t.Errorf("up --demo does not say how to attach to the demo's folder, and how to stop it and delete it:\n%s", out)
	}
	var recs []mailbox.Record
	// The demo waits up to 30 s for the console to show the question, as a
	// person would on a loaded machine: the test waits for the demo longer.
	if !watch.Until(context.Background(), 20*time.Millisecond, 90*time.Second, func() bool {
		recs, _, _ = mailbox.ReadLog(tm.store.LogPath(), 0)
		return len(recs) > 0 && recs[len(recs)-1].Message.Title == "Re: May I deploy to staging?"
	}) {
		console, _ := exec.Command("tmux", "-L", tm.socket, "capture-pane", "-p", "-t", "=switchboard:console").CombinedOutput()
		narrator, _ := exec.Command("tmux", "-L", tm.socket, "capture-pane", "-p", "-J", "-S", "-200", "-t", "=switchboard:agents.{bottom}").CombinedOutput()
		t.Logf("console:\n%s\nthe demo's narrator:\n%s", console, narrator)
		tm.waitFor("the answer to the last ask", func() bool { return false }) // fails, with the team's panes
	}
	var titles []string
	blocked := 0
	for _, r := range recs {
		titles = append(titles, r.Message.From+": "+r.Message.Title)
		if r.Status == mailbox.StatusBlocked {
			blocked++
		}
	}
	log := strings.Join(titles, "\n")
	for _, want := range []string{
		"developer_agent: Code review request for login feature",
		"reviewer_agent: Re: Code review request for login feature",
		"master_agent: Password reset is next",
		"tester_agent: Found a bug in the login form",
		"master_agent: Stop: the build on main is red",
		"developer_agent: May I merge the login feature?",
		"developer_agent: May I deploy to staging?",
		"operator: Re: May I deploy to staging?", // answered from the console
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
	if blocked != 1 {
		t.Errorf("%d blocked messages; want the tester's one:\n%s", blocked, log)
	}
	session, _, _ := lifecycle.LoadSession(workspace.New(tm.root))
	tm.waitFor("yes in the developer's pane and the summary", func() bool {
		dev, _ := exec.Command("tmux", "-L", tm.socket, "capture-pane", "-p", "-J", "-S", "-200", "-t", session.Agents["developer_agent"].Pane).Output()
		narrator, _ := exec.Command("tmux", "-L", tm.socket, "capture-pane", "-p", "-J", "-S", "-200", "-t", "=switchboard:agents.{bottom}").Output()
		return strings.Count(string(dev), "\nyes\n") == 2 && strings.Contains(string(narrator), "Done: 13 messages, every one in the log: 12 delivered, 1 blocked")
	})

	// The demo ends with the keyboard in the narration's pane, where the
	// person is the operator: the ask it suggests, typed where the keyboard
	// is, reaches the developer (in the developer's own pane it would be
	// the developer writing to itself, and blocked).
	var narrator []byte
	tm.waitFor("the demo's last words", func() bool {
		narrator, _ = exec.Command("tmux", "-L", tm.socket, "capture-pane", "-p", "-J", "-S", "-200", "-t", "=switchboard:agents.{bottom}").Output()
		return strings.Contains(string(narrator), "down --purge --root")
	})
	if !strings.Contains(string(narrator), "Try next, in this pane, where you are the operator (the keyboard is here now):") {
		t.Errorf("the demo's last words do not say the keyboard is in the narration's pane:\n%s", narrator)
	}
	if want := "stop the team and delete it with `switchboard down --purge --root " + dir + "`"; !strings.Contains(string(narrator), want) {
		t.Errorf("the demo's last words lack %q:\n%s", want, narrator)
	}
	ask := `switchboard ask --to developer_agent --title "Ready?" --options yes,no`
	if !strings.Contains(string(narrator), ask) {
		t.Fatalf("the demo no longer suggests %s:\n%s", ask, narrator)
	}
	// A target of the session alone is its window in view, and that
	// window's active pane: where a person's keys go.
	for _, keys := range [][]string{{"-l", ask}, {"Enter"}} {
		if out, err := exec.Command("tmux", append([]string{"-L", tm.socket, "send-keys", "-t", "=switchboard:"}, keys...)...).CombinedOutput(); err != nil {
			t.Fatalf("tmux send-keys: %v\n%s", err, out)
		}
	}
	tm.waitFor("the suggested ask, typed where the keyboard is, in the developer's inbox from the operator", func() bool {
		entries, _ := tm.store.List("developer_agent", mailbox.All)
		for _, e := range entries {
			if m, err := mailbox.Load(e.Path); err == nil && m.Title == "Ready?" && m.From == mailbox.Operator {
				return true
			}
		}
		return false
	})

	// The demo's folder goes with down --purge, as its last line says.
	if out := tm.must("down", "--purge", "--root", dir); !strings.Contains(out, "deleted the demo folder "+dir) {
		t.Errorf("down --purge said:\n%s", out)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("after down --purge, the demo folder is still there (%v)", err)
	}
}
