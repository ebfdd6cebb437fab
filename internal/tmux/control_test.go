package tmux

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// countingTmux is a tmux binary that writes a line to a file each time a
// process of it starts, and the client that runs it.
func countingTmux(t *testing.T, c *Client) (*Client, func() []string) {
	t.Helper()
	real, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed")
	}
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	script := filepath.Join(dir, "tmux")
	body := "#!/bin/sh\necho \"$*\" >> " + calls + "\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	counted := NewClient(c.Socket(), ExecRunner{Path: script})
	return counted, func() []string {
		data, _ := os.ReadFile(calls)
		return strings.Split(strings.TrimSpace(string(data)), "\n")
	}
}

func TestAControlConnectionTypesWithNoProcessPerCommand(t *testing.T) {
	cmd, out := recorder(t)
	plain, pane := newServer(t, cmd...)
	waitForCommand(t, plain, pane, "cat")
	c, calls := countingTmux(t, plain)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := c.ConnectControl(ctx, "test"); err != nil {
		t.Fatal(err)
	}
	started := len(calls())
	notice := "it's a notice; with $HOME, ~, #{pane_id}, \"quotes\" and a trailing ;"
	typed, err := c.SendLine(ctx, pane, notice, TypeOptions{})
	if err != nil || !typed.Verified {
		t.Fatalf("SendLine = %+v, %v; want it verified", typed, err)
	}
	waitForFile(t, out, notice+"\n")
	if got := calls(); len(got) != started {
		t.Errorf("typing a line started %d tmux processes: %q", len(got)-started, got[started:])
	}
}

func TestAControlConnectionAnswersAsAProcessDoes(t *testing.T) {
	c, pane := newServer(t, "sh", "-c", `printf '%%end 1 2 1\nswitchboard-answered-3\n%%error 4 5 1\nlast\n'; exec cat`)
	waitForCommand(t, c, pane, "cat")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	byProcess := NewClient(c.Socket(), nil)
	wantScreen, err := byProcess.History(ctx, pane)
	if err != nil {
		t.Fatal(err)
	}
	wantPanes, err := byProcess.ListPanes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.ConnectControl(ctx, "test"); err != nil {
		t.Fatal(err)
	}
	// Lines a pane prints that look like the ends of answers end nothing.
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			screen, err := c.History(ctx, pane)
			if err != nil || screen != wantScreen {
				t.Errorf("History over the connection = %q, %v; want %q", screen, err, wantScreen)
			}
			panes, err := c.ListPanes(ctx)
			if err != nil || len(panes) != len(wantPanes) || panes[0] != wantPanes[0] {
				t.Errorf("ListPanes over the connection = %+v, %v; want %+v", panes, err, wantPanes)
			}
		}()
	}
	wg.Wait()
	if !c.Controlled() {
		t.Fatal("the connection ended")
	}
	// A failure is the same sentence and the same error as from a process.
	_, err = c.History(ctx, "%999")
	_, want := byProcess.History(ctx, "%999")
	if !errors.Is(err, ErrNoPane) || err.Error() != want.Error() {
		t.Errorf("History of no pane = %v; want %v", err, want)
	}
	if screen, err := c.History(ctx, pane); err != nil || screen != wantScreen {
		t.Errorf("after a failure, History = %q, %v", screen, err)
	}
}

func TestAControlConnectionEndsWithItsSession(t *testing.T) {
	c, pane := newServer(t, "sh", "-c", "exec cat")
	waitForCommand(t, c, pane, "cat")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := c.ConnectControl(ctx, "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.command(ctx, "kill-session", "-t", "=test"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for c.Controlled() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if c.Controlled() {
		t.Fatal("the connection outlived its session")
	}
	// Commands go to processes again, and say what a process says.
	if _, err := c.ListPanes(ctx); err == nil {
		t.Error("ListPanes of a server with no session succeeded")
	}
	if err := c.ConnectControl(ctx, "test"); err == nil || !errors.Is(err, ErrNoSession) && !errors.Is(err, ErrNoServer) {
		t.Errorf("ConnectControl to no session = %v; want it said there is none", err)
	}
}

func TestControlRunsOnlyWhatAControlClientMay(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"send-keys", "-t", "%1", "Enter"}, true},
		{[]string{"display-message", "-p", "-t", "%1", "#{cursor_y}", ";", "capture-pane", "-p", "-t", "%1"}, true},
		{[]string{"display-message", "-d", "100", "-t", "%1", "hello"}, false}, // would show on the control client
		{[]string{"capture-pane", "-p", ";", "display-message", "hello", "-p"}, true},
		{[]string{"capture-pane", "-p", ";", "display-message", "hello"}, false},
		{[]string{"wait-for", "chan"}, false},
		{[]string{"if-shell", "true", "send-keys Enter"}, false}, // runs a shell
		{[]string{"if-shell", "-F", "#{pane_in_mode}", "send-keys -X cancel"}, true},
		{[]string{"set-buffer", "-b", "b", "--", "two\nlines"}, false},
		{[]string{"kill-server"}, false},
	} {
		if got := controlRuns(tc.args); got != tc.want {
			t.Errorf("controlRuns(%q) = %v; want %v", tc.args, got, tc.want)
		}
	}
}
