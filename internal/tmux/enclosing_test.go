package tmux

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestTheEnclosingServerIsTheCallers: outside tmux there is none; inside,
// a message is shown as written, for as long as asked, and a pane is
// brought before the caller with its window.
func TestTheEnclosingServerIsTheCallers(t *testing.T) {
	t.Setenv("TMUX", "")
	if _, ok := EnclosingServer(nil); ok {
		t.Fatal("an enclosing server outside tmux")
	}
	t.Setenv("TMUX", "/tmp/tmux-1000/sb-team,4242,0")
	stub := NewStubRunner(t)
	here, ok := EnclosingServer(stub)
	if !ok {
		t.Fatal("no enclosing server inside tmux")
	}
	stub.Expect(
		StubCall{Match: "display-message -d 5000 reviewer_agent asks: ##1 or ##{pane_id}?"},
		StubCall{Match: "select-window -t %7 ; select-pane -t %7"},
		StubCall{Match: "select-window -t %9", Err: &RunError{Stderr: "can't find pane: %9"}},
	)
	ctx := context.Background()
	if err := here.ShowMessage(ctx, "reviewer_agent asks: #1 or #{pane_id}?", 5*time.Second); err != nil {
		t.Error(err)
	}
	if err := here.ShowPane(ctx, "%7"); err != nil {
		t.Error(err)
	}
	if err := here.ShowPane(ctx, "%9"); !errors.Is(err, ErrNoPane) {
		t.Errorf("a pane that is gone: %v; want ErrNoPane", err)
	}
}

// TestShowPaneBringsItsWindowForward: in a real tmux, the pane shown is
// the one its session shows next, its window with it.
func TestShowPaneBringsItsWindowForward(t *testing.T) {
	c, first := newServer(t, "sleep", "600")
	ctx := context.Background()
	second, err := c.NewWindow(ctx, "test", "other", PaneSpec{Command: []string{"sleep", "600"}})
	if err != nil {
		t.Fatal(err)
	}
	socket, err := c.command(ctx, "display-message", "-p", "#{socket_path}")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMUX", strings.TrimSpace(socket)+",1,0")
	here, ok := EnclosingServer(nil)
	if !ok {
		t.Fatal("no enclosing server inside tmux")
	}
	for _, pane := range []string{second, first, second} {
		if err := here.ShowPane(ctx, pane); err != nil {
			t.Fatal(err)
		}
		if shown, _ := c.command(ctx, "display-message", "-p", "-t", "test", "#{pane_id}"); strings.TrimSpace(shown) != pane {
			t.Errorf("after ShowPane(%s) the session shows %s", pane, shown)
		}
	}
}
