package tmux

import (
	"context"
	"errors"
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
