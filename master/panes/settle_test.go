package panes

import (
	"strings"
	"testing"
	"time"

	"switchboard/lifecycle"
	"switchboard/profile"
)

// TestFirstNoticeWaitsForAScreenThatStandsStill: a client may look idle
// (its start-up hook ran) before it reads its input; the pane is ready
// once its screen has stood still a second, and for an agent client, once
// it has drawn anything at all.
func TestFirstNoticeWaitsForAScreenThatStandsStill(t *testing.T) {
	p := &Panes{}
	t0 := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		kind  string
		looks []screen
		ready bool
	}{
		{profile.KindGemini, []screen{{1, true}, {1, true}, {1, true}}, false},              // not drawn yet
		{profile.KindGemini, []screen{{1, true}, {2, false}, {3, false}}, false},            // still drawing
		{profile.KindGemini, []screen{{1, true}, {2, false}, {2, false}, {2, false}}, true}, // drawn, then still
		{profile.KindGeneric, []screen{{1, true}, {1, true}}, true},                         // a program that draws nothing
	} {
		v := &view{seat: &lifecycle.Seat{Kind: tt.kind}}
		for i, sc := range tt.looks {
			p.settle(v, sc, t0.Add(time.Duration(i)*time.Second))
		}
		if v.ready != tt.ready {
			t.Errorf("%s after looks %v: ready %v; want %v", tt.kind, tt.looks, v.ready, tt.ready)
		}
	}
	// A screen that never stands still does not hold the notices forever.
	v := &view{seat: &lifecycle.Seat{Kind: profile.KindClaude}}
	for i := 0; i <= 10; i++ {
		p.settle(v, screen{uint64(i), false}, t0.Add(time.Duration(i)*time.Second))
	}
	if !v.ready {
		t.Error("a pane whose screen changes every second is never ready")
	}
	v = &view{seat: &lifecycle.Seat{Kind: profile.KindClaude}}
	p.settle(v, screen{7, false}, t0)
	p.settle(v, screen{7, false}, t0.Add(300*time.Millisecond))
	if v.ready {
		t.Error("ready after 300 ms of a still screen; want a second")
	}
}

func TestTheMasterSaysWhoJoinedAndWhoLeft(t *testing.T) {
	old := &lifecycle.Session{Agents: map[string]*lifecycle.Seat{"reviewer_agent": {Pane: "%1"}, "tester_agent-1": {Pane: "%5", Parent: "reviewer_agent"}}}
	now := &lifecycle.Session{Agents: map[string]*lifecycle.Seat{"reviewer_agent": {Pane: "%1"}, "tester_agent-2": {Pane: "%7", Parent: "reviewer_agent"}}}
	got := strings.Join(seatChanges(old, now), "; ")
	if want := "tester_agent-2 joined under reviewer_agent (pane %7); tester_agent-1 left"; got != want {
		t.Errorf("seatChanges = %q; want %q", got, want)
	}
}
