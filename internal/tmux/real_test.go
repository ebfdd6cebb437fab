package tmux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

var serverSeq atomic.Int32

// newServer starts a private tmux server for one test, with one session
// whose first pane runs command; it is killed when the test ends.
func newServer(t *testing.T, command ...string) (*Client, string) {
	t.Helper()
	if !Installed() {
		t.Skip("tmux is not installed: install it (apt-get install -y tmux) to run the tests against a real tmux")
	}
	t.Setenv("TMUX", "")
	c := NewClient(fmt.Sprintf("sbtest-%d-%d", os.Getpid(), serverSeq.Add(1)), nil)
	pane, err := c.NewSession(context.Background(), "test", "main", 120, 40, PaneSpec{Dir: t.TempDir(), Command: command})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.KillServer(context.Background()) })
	return c, pane
}

// recorder is a pane program that appends every line it reads to a file,
// in the terminal's cooked mode, so each submitted line is one line there.
func recorder(t *testing.T) (command []string, out string) {
	out = filepath.Join(t.TempDir(), "received")
	return []string{"sh", "-c", "exec cat > " + out}, out
}

func waitForFile(t *testing.T, path, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	var got []byte
	for time.Now().Before(deadline) {
		got, _ = os.ReadFile(path)
		if string(got) == want {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("pane received %q; want %q", got, want)
}

func TestSendLineIsSubmittedExactlyOnce(t *testing.T) {
	cmd, out := recorder(t)
	c, pane := newServer(t, cmd...)
	waitForCommand(t, c, pane, "cat")
	notice := "[FROM: Developer Agent] Code review request for login feature (switchboard read 01a2050f)"
	typed, err := c.SendLine(context.Background(), pane, notice, TypeOptions{})
	if err != nil || !typed.Verified || typed.Enters != 1 {
		t.Fatalf("SendLine = %+v, %v; want verified with one Enter", typed, err)
	}
	waitForFile(t, out, notice+"\n")
}

func TestSendLineNeverTypesControlCharacters(t *testing.T) {
	cmd, out := recorder(t)
	c, pane := newServer(t, cmd...)
	waitForCommand(t, c, pane, "cat")
	if _, err := c.SendLine(context.Background(), pane, "title\nrm -rf ~\x1b[A\r", TypeOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForFile(t, out, "title rm -rf ~ [A\n")
}

func TestInterruptSendsOneEscapeThenTheNotice(t *testing.T) {
	cmd, out := recorder(t)
	c, pane := newServer(t, cmd...)
	waitForCommand(t, c, pane, "cat")
	ctx := context.Background()
	if err := c.Interrupt(ctx, pane); err != nil {
		t.Fatal(err)
	}
	if err := c.Interrupt(ctx, pane); err != nil { // must not send a second ESC
		t.Fatal(err)
	}
	if _, err := c.SendLine(ctx, pane, "[INTERRUPT] [FROM: Master Agent] stop and rebase", TypeOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForFile(t, out, "\x1b[INTERRUPT] [FROM: Master Agent] stop and rebase\n")
}

func TestSendLineLeavesCopyModeOnARealPane(t *testing.T) {
	cmd, out := recorder(t)
	c, pane := newServer(t, cmd...)
	waitForCommand(t, c, pane, "cat")
	if _, err := c.command(context.Background(), "copy-mode", "-t", pane); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SendLine(context.Background(), pane, "after copy mode", TypeOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForFile(t, out, "after copy mode\n")
}

func TestListPanesSeesEveryPaneAndDeadOnes(t *testing.T) {
	c, first := newServer(t, "sleep", "600")
	ctx := context.Background()
	var dead string
	for i := range 12 {
		spec := PaneSpec{Command: []string{"sleep", "600"}}
		if i == 5 {
			spec.Command = []string{"sh", "-c", "exit 3"}
		}
		id, err := c.NewWindow(ctx, "test", fmt.Sprintf("w%d", i), spec)
		if err != nil {
			t.Fatal(err)
		}
		if i == 5 {
			dead = id
		}
	}
	if err := c.SetLabels(ctx, Labels{Agent: map[string]string{first: "developer_agent"}}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		panes, err := c.ListPanes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		byID := make(map[string]Pane)
		for _, p := range panes {
			byID[p.ID] = p
		}
		if len(panes) != 13 || byID[first].Agent != "developer_agent" {
			t.Fatalf("ListPanes gave %d panes (want 13), first pane's agent %q", len(panes), byID[first].Agent)
		}
		if d := byID[dead]; d.Dead {
			if d.DeadStatus == nil {
				continue // tmux marks a pane dead a moment before it knows the status
			}
			if *d.DeadStatus != 3 {
				t.Errorf("dead pane status %d; want 3", *d.DeadStatus)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pane %s never showed as dead", dead)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A notice typed into a pane whose program has just ended is refused, and
// the server, every other pane with it, lives on: tmux 3.3a crashes
// pasting into a dead pane. Typed by a process per command, and over a
// control connection.
func TestTypingIntoADeadPaneLeavesTheServerUp(t *testing.T) {
	for _, controlled := range []bool{false, true} {
		t.Run(fmt.Sprintf("control=%v", controlled), func(t *testing.T) {
			c, _ := newServer(t, "sleep", "600")
			ctx := context.Background()
			if controlled {
				cctx, stop := context.WithCancel(ctx)
				t.Cleanup(stop)
				if err := c.ConnectControl(cctx, "test"); err != nil {
					t.Fatal(err)
				}
			}
			dead, err := c.NewWindow(ctx, "test", "ended", PaneSpec{Command: []string{"true"}})
			if err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(5 * time.Second)
			for !paneDead(t, c, dead) {
				if time.Now().After(deadline) {
					t.Fatalf("pane %s never showed as dead", dead)
				}
				time.Sleep(10 * time.Millisecond)
			}
			_, err = c.SendLine(ctx, dead, "[FROM: Reviewer Agent] Review the login fix (switchboard read 01a2050f)", TypeOptions{})
			if !errors.Is(err, ErrPaneDead) {
				t.Errorf("typing into a dead pane: %v; want ErrPaneDead", err)
			}
			if _, err := c.ListPanes(ctx); err != nil {
				t.Fatalf("the server is gone after a line was typed into a dead pane: %v", err)
			}
			if got, _ := c.command(ctx, "list-buffers", "-F", "#{buffer_name}"); strings.Contains(got, "switchboard-") {
				t.Errorf("the notice's buffer is left behind: %q", got)
			}
			cmd, out := recorder(t)
			live, err := c.NewWindow(ctx, "test", "live", PaneSpec{Command: cmd})
			if err != nil {
				t.Fatal(err)
			}
			waitForCommand(t, c, live, "cat")
			if _, err := c.SendLine(ctx, live, "still typed", TypeOptions{}); err != nil {
				t.Fatalf("typing into a live pane after: %v", err)
			}
			waitForFile(t, out, "still typed\n")
		})
	}
}

// paneDead reports whether the pane's program has ended.
func paneDead(t *testing.T, c *Client, pane string) bool {
	t.Helper()
	panes, err := c.ListPanes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range panes {
		if p.ID == pane {
			return p.Dead
		}
	}
	t.Fatalf("pane %s is gone", pane)
	return false
}

func TestHasSessionMatchesExactNames(t *testing.T) {
	c, _ := newServer(t, "sleep", "600")
	ctx := context.Background()
	for name, want := range map[string]bool{"test": true, "tes": false, "other": false} {
		if got, err := c.HasSession(ctx, name); err != nil || got != want {
			t.Errorf("HasSession(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	if pid, err := c.ServerPID(ctx); err != nil || pid <= 0 {
		t.Errorf("ServerPID = %d, %v", pid, err)
	}
}

// waitForCommand waits until the pane's foreground program is the one named,
// so that nothing is typed before it reads its terminal.
func waitForCommand(t *testing.T, c *Client, pane, command string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		panes, err := c.ListPanes(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range panes {
			if p.ID == pane && strings.HasPrefix(p.Command, command) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("pane %s never ran %s", pane, command)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestScreensKeepsEveryPane reads a dozen panes at once: each comes back
// under its own id, also those whose number tmux pads when it is written
// literally in a message (%3, %10).
func TestScreensKeepsEveryPane(t *testing.T) {
	c, first := newServer(t, "sh", "-c", "echo pane-zero; exec sleep 600")
	ctx := context.Background()
	ids := []string{first}
	for i := 1; i <= 11; i++ {
		out, err := c.command(ctx, "new-window", "-d", "-t", "=test:", "-P", "-F", "#{pane_id}", "sh", "-c", fmt.Sprintf("echo pane-%d; exec sleep 600", i))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, strings.TrimSpace(out))
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		screens, err := c.Screens(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		missing := 0
		for i, id := range ids {
			want := fmt.Sprintf("pane-%d", i)
			if i == 0 {
				want = "pane-zero"
			}
			if !strings.Contains(screens[id], want) {
				missing++
				if time.Now().After(deadline) {
					t.Errorf("screen of %s = %q; want it to show %s", id, screens[id], want)
				}
			}
		}
		if missing == 0 || time.Now().After(deadline) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSetLabelsSurvivesAGonePane labels panes of which one is gone: the
// others still get theirs, and the gone one is no error.
func TestSetLabelsSurvivesAGonePane(t *testing.T) {
	c, first := newServer(t, "sleep", "600")
	ctx := context.Background()
	second, err := c.NewWindow(ctx, "test", "second", PaneSpec{Command: []string{"sleep", "600"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.KillPane(ctx, second); err != nil {
		t.Fatal(err)
	}
	if err := c.KillPane(ctx, second); !errors.Is(err, ErrNoPane) {
		t.Errorf("killing a gone pane: %v; want ErrNoPane", err)
	}
	labels := Labels{Title: map[string]string{first: "Developer Agent · idle", second: "gone"}, Status: "2 agents"}
	if err := c.SetLabels(ctx, labels); !errors.Is(err, ErrNoPane) {
		t.Fatalf("SetLabels with a gone pane = %v; want ErrNoPane, the others set", err)
	}
	out, err := c.command(ctx, "display-message", "-p", "-t", first, "#{@sb_title}|#{@sb_status}")
	if err != nil || strings.TrimSpace(out) != "Developer Agent · idle|2 agents" {
		t.Errorf("labels read back %q, %v", out, err)
	}
}

// TestAProgramThatEndsAtOnceKeepsItsWords starts many panes, one tmux call
// each as up does, whose program prints a line and exits at once, as a
// mistyped command does: each dead pane still shows that line. (A tmux
// before 3.7 closes a pane whose program has ended without reading what it
// printed last, unless the pane is piped: a few panes in a hundred lost
// their words that way.)
func TestAProgramThatEndsAtOnceKeepsItsWords(t *testing.T) {
	const panes = 100
	words := func(i int) string { return fmt.Sprintf("words of pane %d", i) }
	program := func(i int) []string {
		return []string{"sh", "-c", fmt.Sprintf("echo '%s' >&2; exit 3", words(i))}
	}
	c, first := newServer(t, program(0)...)
	ctx := context.Background()
	ids := []string{first}
	for i := 1; i < panes; i++ {
		var id string
		var err error
		if i%2 == 1 {
			id, err = c.NewWindow(ctx, "test", fmt.Sprintf("w%d", i), PaneSpec{Command: program(i)})
		} else {
			id, err = c.SplitWindow(ctx, Window("test", fmt.Sprintf("w%d", i-1)), PaneSpec{Command: program(i)})
		}
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		list, err := c.ListPanes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		dead := 0
		for _, p := range list {
			if p.Dead && p.DeadStatus != nil {
				dead++
			}
		}
		if dead == panes {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d panes ended: %+v", dead, panes, list)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Every pane's scrollback in one call: tmux's "Pane is dead" line has
	// scrolled the first line off the screen.
	var args []string
	for _, id := range ids {
		args = append(args, "capture-pane", "-p", "-J", "-S", "-", "-t", id, ";", "display-message", "-p", "-t", id, "end of #{pane_id}", ";")
	}
	out, err := c.command(ctx, args[:len(args)-1]...)
	if err != nil {
		t.Fatal(err)
	}
	var lost []string
	for i, id := range ids {
		history, rest, ok := strings.Cut(out, "end of "+id+"\n")
		if !ok {
			t.Fatalf("no scrollback of %s in %q", id, out)
		}
		if out = rest; !strings.Contains(history, words(i)) {
			lost = append(lost, id)
		}
	}
	// The pipe leaves tmux a race it sometimes still loses on a loaded
	// machine: one pane in a hundred at rest, three with a soak and a
	// download beside the test, where without it a few lose their words at
	// rest, more on a busy machine.
	if len(lost) > panes/20 {
		t.Errorf("%d of %d dead panes lost what their program printed: %v", len(lost), panes, lost)
	}
}
