package tmux

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// FollowOutput hears a pane of any window print, hears nothing of a quiet
// one, and ends saying why when the server goes.
func TestFollowOutputHearsWhichPanePrinted(t *testing.T) {
	c, quiet := newServer(t, "sh", "-c", "exec sleep 600")
	ctx := context.Background()
	talker, err := c.NewWindow(ctx, "test", "second", PaneSpec{Dir: t.TempDir(), Command: []string{"sh", "-c", "read line; echo \"got $line\"; exec sleep 600"}})
	if err != nil {
		t.Fatal(err)
	}
	waitForCommand(t, c, talker, "sh")
	var mu sync.Mutex
	heard := map[string]int{}
	f, err := c.FollowOutput(ctx, "test", func(pane string) {
		mu.Lock()
		heard[pane]++
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.command(ctx, "send-keys", "-t", talker, "hello", "Enter"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := heard[talker]
		mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the output of %s in the second window was not heard: %v", talker, heard)
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	if heard[quiet] != 0 {
		t.Errorf("the quiet pane %s was heard %d times", quiet, heard[quiet])
	}
	mu.Unlock()

	if err := c.KillServer(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-f.Ended():
		if err == nil {
			t.Error("the server ended and the follower said nothing of it")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the follower did not end with its server")
	}
}

// Ending the context ends the follower quietly.
func TestFollowOutputEndsWithItsContext(t *testing.T) {
	c, _ := newServer(t, "sh", "-c", "exec sleep 600")
	ctx, cancel := context.WithCancel(context.Background())
	f, err := c.FollowOutput(ctx, "test", func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-f.Ended():
		if err != nil {
			t.Errorf("ended by its context, the follower said %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the follower did not end with its context")
	}
}

func TestFollowOutputNeedsTheBinary(t *testing.T) {
	c := NewClient("none", &StubRunner{})
	if _, err := c.FollowOutput(context.Background(), "test", func(string) {}); !errors.Is(err, ErrNoControlMode) {
		t.Errorf("a stub client followed output: %v", err)
	}
}

// A muted pane's output does not reach the follower; another's does.
func TestAMutedPaneIsNotHeard(t *testing.T) {
	echo := []string{"sh", "-c", "read line; echo \"got $line\"; exec sleep 600"}
	c, muted := newServer(t, echo...)
	ctx := context.Background()
	heard, err := c.NewWindow(ctx, "test", "second", PaneSpec{Dir: t.TempDir(), Command: echo})
	if err != nil {
		t.Fatal(err)
	}
	waitForCommand(t, c, muted, "sh")
	waitForCommand(t, c, heard, "sh")
	var mu sync.Mutex
	count := map[string]int{}
	f, err := c.FollowOutput(ctx, "test", func(pane string) {
		mu.Lock()
		count[pane]++
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Mute(muted, true); err != nil {
		t.Fatal(err)
	}
	if err := f.Mute("%1; kill-server", true); err == nil {
		t.Error("a command rode in on a pane id")
	}
	// The muted pane prints, and is seen to have printed, before the other
	// does: its output would come first.
	if _, err := c.command(ctx, "send-keys", "-t", muted, "one", "Enter"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the muted pane to print", func() bool {
		screens, _ := c.Screens(ctx, []string{muted})
		return strings.Contains(screens[muted], "got one")
	})
	if _, err := c.command(ctx, "send-keys", "-t", heard, "two", "Enter"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the other pane to be heard", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return count[heard] > 0
	})
	mu.Lock()
	defer mu.Unlock()
	if count[muted] != 0 {
		t.Errorf("the muted pane was heard %d times", count[muted])
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestFollowOutputOfNoSession(t *testing.T) {
	c, _ := newServer(t, "sh", "-c", "exec sleep 600")
	_, err := c.FollowOutput(context.Background(), "nosuch", func(string) {})
	if !errors.Is(err, ErrNoSession) {
		t.Errorf("following a session that is not there: %v; want ErrNoSession", err)
	}
}
