package tmux

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

var fast = TypeOptions{Pause: time.Millisecond, Check: 20 * time.Millisecond, Retries: 2}

func TestSendLineRetriesEnterThenReportsFailure(t *testing.T) {
	stub := NewStubRunner(t)
	c := NewClient("test", stub)
	stub.Expect(StubCall{Match: "display-message -p -t %3 #{cursor_y}", Output: "4 0\n"})
	stub.Expect(StubCall{Match: "load-buffer -b switchboard-3-1 - ; paste-buffer -d -p -r -b switchboard-3-1 -t %3"})
	// The text sits on the input line and never leaves, Enter after Enter.
	for range 40 {
		stub.Expect(StubCall{Match: "display-message -p -t %3 #{cursor_y}", Output: "4 0\n"},
			StubCall{Match: "capture-pane -p -J -t %3 -S 0 -E 4", Output: "> hello there\n"})
	}
	stub.Expect(StubCall{Match: "send-keys -t %3 Enter"}, StubCall{Match: "send-keys -t %3 Enter"}, StubCall{Match: "send-keys -t %3 Enter"})

	typed, err := c.SendLine(context.Background(), "%3", "hello there", fast)
	if !errors.Is(err, ErrNotSubmitted) || typed.Enters != 3 || typed.Verified {
		t.Errorf("SendLine = %+v, %v; want ErrNotSubmitted after 3 Enters", typed, err)
	}
	useAll(stub)
}

func TestSendLineLeavesCopyModeFirst(t *testing.T) {
	stub := NewStubRunner(t)
	c := NewClient("test", stub)
	stub.Expect(
		StubCall{Match: "display-message -p -t %1 #{cursor_y}", Output: "0 1\n"},
		StubCall{Match: "capture-pane -p -J -t %1 -S 0 -E 0", Output: "\n"},
		StubCall{Match: "send-keys -t %1 -X cancel"},
		StubCall{Match: "paste-buffer"},
		StubCall{Match: "display-message -p -t %1 #{cursor_y}", Output: "0 0\n"},
		StubCall{Match: "capture-pane -p -J -t %1 -S 0 -E 0", Output: "$ hi\n"},
		StubCall{Match: "send-keys -t %1 Enter"},
		StubCall{Match: "display-message -p -t %1 #{cursor_y}", Output: "1 0\n"},
		StubCall{Match: "capture-pane -p -J -t %1 -S 0 -E 1", Output: "$ hi\n$ \n"},
	)
	typed, err := c.SendLine(context.Background(), "%1", "hi", fast)
	if err != nil || !typed.Verified || typed.Enters != 1 {
		t.Errorf("SendLine = %+v, %v; want verified with one Enter", typed, err)
	}
}

func TestSendLineToAProgramThatDoesNotEcho(t *testing.T) {
	stub := NewStubRunner(t)
	c := NewClient("test", stub)
	stub.Expect(
		StubCall{Match: "display-message", Output: "0 0\n"},
		StubCall{Match: "capture-pane", Output: "\n"},
		StubCall{Match: "paste-buffer"},
		StubCall{Match: "display-message", Output: "0 0\n"},
		StubCall{Match: "capture-pane", Output: "\n"},
		StubCall{Match: "send-keys -t %2 Enter"},
	)
	typed, err := c.SendLine(context.Background(), "%2", "quiet", fast)
	if err != nil || typed.Verified || typed.Enters != 1 {
		t.Errorf("SendLine = %+v, %v; want one Enter, unverified, no error", typed, err)
	}
}

func TestSendLineRefusesEmptyText(t *testing.T) {
	c := NewClient("test", NewStubRunner(t))
	if _, err := c.SendLine(context.Background(), "%1", "\x1b\n\r", fast); err == nil {
		t.Errorf("typing only control characters succeeded; want an error and no tmux call")
	}
}

// useAll marks the extra polling answers of a stub as used: how many polls
// fit in the check window depends on timing, not on behaviour.
func useAll(s *StubRunner) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.calls {
		s.calls[i].used = true
	}
}

// A pane closed while a line is typed into it is said to have gone away.
func TestAPaneThatWentAwayIsSaidSo(t *testing.T) {
	stub := NewStubRunner(t)
	stub.Expect(StubCall{Match: "display-message -p -t %23", Output: " \n"})
	_, _, err := NewClient("s", stub).inputLine(context.Background(), "%23")
	if !errors.Is(err, ErrNoPane) || !strings.Contains(err.Error(), "pane %23 went away") {
		t.Errorf("a gone pane's cursor: %v", err)
	}
}
