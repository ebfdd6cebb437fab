package panes

import (
	"testing"
	"time"

	"switchboard/conversation"
	"switchboard/lifecycle"
	"switchboard/profile"
)

func TestChangedIsNewsOnly(t *testing.T) {
	at := time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)
	zero, one := 0, 1
	idle := conversation.State{State: conversation.Idle, Source: conversation.SourceHook, Since: at}
	for _, c := range []struct {
		name      string
		old, next conversation.State
		want      bool
	}{
		{"the same reading", idle, idle, false},
		{"another state", idle, conversation.State{State: conversation.Busy, Source: conversation.SourceHook, Since: at}, true},
		{"a hook's newer report of the same state", idle, conversation.State{State: conversation.Idle, Source: conversation.SourceHook, Since: at.Add(time.Second)}, true},
		{"the screen's reading of the same state, later", conversation.State{State: conversation.Idle, Source: conversation.SourcePane, Since: at}, conversation.State{State: conversation.Idle, Source: conversation.SourcePane, Since: at.Add(time.Second)}, false},
		{"an exit status filled in", conversation.State{State: conversation.Exited}, conversation.State{State: conversation.Exited, ExitStatus: &one}, true},
		{"another exit status", conversation.State{State: conversation.Exited, ExitStatus: &zero}, conversation.State{State: conversation.Exited, ExitStatus: &one}, true},
		{"the same exit status", conversation.State{State: conversation.Exited, ExitStatus: &one}, conversation.State{State: conversation.Exited, ExitStatus: &one}, false},
	} {
		if got := changed(c.old, c.next); got != c.want {
			t.Errorf("%s: changed = %v; want %v", c.name, got, c.want)
		}
	}
}

// An agent without hooks is read from its screen: starting until it is
// seen, busy while it moves, idle once it has stood still for a tick.
func TestScreenStateFollowsTheScreen(t *testing.T) {
	p := &Panes{tick: time.Second}
	v := &view{}
	start := time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)
	for i, step := range []struct {
		after  time.Duration
		screen uint64
		want   string
	}{
		{0, 1, conversation.Starting},
		{500 * time.Millisecond, 1, conversation.Starting}, // still, not yet for a tick
		{time.Second, 1, conversation.Idle},
		{1500 * time.Millisecond, 2, conversation.Busy},
		{2 * time.Second, 2, conversation.Busy}, // paused between two outputs
		{2500 * time.Millisecond, 2, conversation.Idle},
		{2600 * time.Millisecond, 2, conversation.Idle},
		{2700 * time.Millisecond, 3, conversation.Busy},
	} {
		st := p.screenState(v, step.screen, start.Add(step.after))
		if st.State != step.want || st.Source != conversation.SourcePane {
			t.Fatalf("step %d (screen %d at +%v): %s from %s; want %s from the pane", i, step.screen, step.after, st.State, st.Source, step.want)
		}
		v.state = st
	}

	// A hooked agent the master interrupted stays so until its screen is
	// seen again: that first screen is the reference, not news.
	v = &view{state: conversation.State{State: conversation.Interrupted}}
	if st := p.screenState(v, 7, start); st.State != conversation.Interrupted {
		t.Errorf("first look after ESC: %s; want interrupted", st.State)
	}
}

// The first notice waits for a screen that stands still, and for a hooked
// client's screen to be drawn at all; a screen that never stands still is
// ready after readyAtLatest.
func TestSettleWaitsForAStillDrawnScreen(t *testing.T) {
	p := &Panes{tick: time.Second}
	start := time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)
	look := func(v *view, after time.Duration, sc screen) bool {
		p.settle(v, sc, start.Add(after))
		return v.ready
	}

	shell := &view{seat: &lifecycle.Seat{Kind: profile.KindShell}}
	if look(shell, 0, screen{hash: 1}) || look(shell, readyAfter/2, screen{hash: 1}) {
		t.Error("a shell is ready before its screen stood still for readyAfter")
	}
	if !look(shell, readyAfter, screen{hash: 1}) {
		t.Error("a shell whose screen stood still for readyAfter is not ready")
	}

	claude := &view{seat: &lifecycle.Seat{Kind: profile.KindClaude}}
	look(claude, 0, screen{hash: 0, blank: true})
	if look(claude, 2*readyAfter, screen{hash: 0, blank: true}) {
		t.Error("a hooked client with a blank screen is ready: its screen is not drawn yet")
	}

	clock := &view{seat: &lifecycle.Seat{Kind: profile.KindGeneric}}
	for i := range 10 {
		if look(clock, time.Duration(i)*readyAfter/2, screen{hash: uint64(i)}) {
			t.Fatalf("a moving screen is ready at +%v", time.Duration(i)*readyAfter/2)
		}
	}
	if !look(clock, readyAtLatest, screen{hash: 99}) {
		t.Error("a screen that never stands still is not ready after readyAtLatest")
	}
}
