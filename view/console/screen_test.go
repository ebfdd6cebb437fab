package console

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"switchboard/desk"
)

// later is s as a look taken d later sees it: the same team, older ages.
func later(s *desk.Snapshot, d time.Duration) *desk.Snapshot {
	out := *s
	out.At = s.At.Add(d)
	return &out
}

// onScreen is the console over snaps drawn on a terminal of width by
// height that writes to the returned buffer, its clock given by tick
// (stoppedClock for none), once its first frame is drawn.
func onScreen(t *testing.T, width, height int, tick func(time.Duration, func(time.Time) tea.Msg) tea.Cmd, snaps ...*desk.Snapshot) (*Model, *screen, *bytes.Buffer) {
	t.Helper()
	m, _, _ := console(t, width, height, snaps...)
	m.tick, m.ticking = tick, false
	var out bytes.Buffer
	s := newScreen(m, &out, width, height)
	run(s, s.Init())
	if s.frames != 1 || !strings.Contains(out.String(), "developer_agent") {
		t.Fatalf("the first frame: %d frames written, %q", s.frames, out.String())
	}
	return m, s, &out
}

// TestAConsoleAtRestDrawsNothing: a folder of the team changed, the
// console looked, and the team is as it was, every age shown over a
// minute: it writes not a byte to the terminal, and starts no clock.
func TestAConsoleAtRestDrawsNothing(t *testing.T) {
	ticks := 0
	clock := func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { ticks++; return nil }
	s0 := later(team(), 2*time.Minute) // its youngest message 2m10s old
	_, s, out := onScreen(t, 140, 30, clock, s0, later(s0, 10*time.Minute))
	out.Reset()
	run(s, func() tea.Msg { return changedMsg{} })
	if out.Len() != 0 || s.frames != 1 {
		t.Errorf("the team did not change, yet the console wrote %d frames: %q", s.frames-1, out.String())
	}
	if ticks != 0 {
		t.Errorf("the console asked for %d ticks of its clock with every age over a minute; want none", ticks)
	}
}

// TestTheClockTicksOnlyWhileAnAgeUnderAMinuteIsShown: the team's last
// message is 10 s old. The console draws its age each second, once a
// second, until it is a minute old; then it shows the message's time, and
// its clock stops.
func TestTheClockTicksOnlyWhileAnAgeUnderAMinuteIsShown(t *testing.T) {
	var m *Model
	var ticks []time.Duration
	clock := func(d time.Duration, tock func(time.Time) tea.Msg) tea.Cmd {
		ticks = append(ticks, d)
		if len(ticks) > 100 {
			return nil // a clock that would not stop: counted, and stopped here
		}
		return func() tea.Msg { return tock(m.now.Add(d)) } // a fake clock: the tick is due at once
	}
	m, _, _ = console(t, 140, 30, team())
	m.tick, m.ticking = clock, false
	var out bytes.Buffer
	s := newScreen(m, &out, 140, 30)
	run(s, s.Init()) // the clock runs its course within
	if len(ticks) != 50 {
		t.Errorf("the clock ticked %d times; want 50, from the age of 10 s to a minute", len(ticks))
	}
	for i, d := range ticks {
		if d < time.Second {
			t.Fatalf("tick %d came %s after the one before; want a second at least", i, d)
		}
	}
	if s.frames != 1+50 {
		t.Errorf("%d frames written; want the first and one a tick, each a second older", s.frames)
	}
	frame := m.View()
	if !strings.Contains(frame, "09:29 Stop: the API changed") || strings.Contains(frame, "s Stop: the API changed") {
		t.Errorf("a minute later, the last message's time is not shown:\n%s", frame)
	}
	out.Reset()
	run(s, func() tea.Msg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("b")} })
	run(s, func() tea.Msg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("b")} })
	if len(ticks) != 50 {
		t.Errorf("the clock ticked again (%d ticks) once every age was over a minute", len(ticks))
	}
	if out.Len() == 0 {
		t.Error("keys that changed the log's filter and back drew nothing")
	}
}

// TestTheScreenDrawsTheLinesThatChanged: a key that moves the cursor
// rewrites the two lines it left and reached, not the frame.
func TestTheScreenDrawsTheLinesThatChanged(t *testing.T) {
	_, s, out := onScreen(t, 140, 30, stoppedClock, later(team(), 2*time.Minute))
	out.Reset()
	run(s, func() tea.Msg { return tea.KeyMsg{Type: tea.KeyDown} })
	if got := strings.Count(out.String(), ";1H"); got != 2 || s.frames != 2 {
		t.Errorf("down rewrote %d lines in %d frames; want the two rows the cursor left and reached, in one:\n%q", got, s.frames-1, out.String())
	}
	out.Reset()
	run(s, func() tea.Msg { return tea.WindowSizeMsg{Width: 100, Height: 30} })
	if !strings.HasPrefix(out.String(), "\x1b[2J") || !strings.Contains(out.String(), "developer_agent") {
		t.Errorf("a resize did not clear and draw the whole frame anew: %q", out.String())
	}
}

// TestABurstOfChangesIsLookedAtOnce: a team coming up changes hundreds of
// files at once; the console reads the team at the first change and once
// more after it, not once for each change, half a second apart.
func TestABurstOfChangesIsLookedAtOnce(t *testing.T) {
	m, _, _ := console(t, 140, 30, later(team(), 2*time.Minute))
	reads := 0
	read := m.cfg.Read
	m.cfg.Read = func(ctx context.Context) (*desk.Snapshot, error) { reads++; return read(ctx) }
	m.tick = func(_ time.Duration, tock func(time.Time) tea.Msg) tea.Cmd {
		return func() tea.Msg { return tock(m.now) } // the look due, at once when run
	}
	var looks []tea.Cmd
	for range 300 {
		_, cmd := m.Update(changedMsg{})
		looks = append(looks, cmd)
	}
	for _, cmd := range looks {
		run(m, cmd)
	}
	if reads != 2 {
		t.Errorf("300 changes at once were looked at %d times; want twice: at the first, and once after the gap", reads)
	}
}
