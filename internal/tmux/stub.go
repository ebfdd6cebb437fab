package tmux

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// StubRunner answers tmux calls from a script of expected calls, for unit
// tests of the logic around tmux. A call that was not expected fails the
// test, and so does an expected call that never came (see Verify).
type StubRunner struct {
	mu    sync.Mutex
	calls []StubCall
	t     testingT
}

// StubCall is one expected call: the arguments after the socket flags must
// contain Match (as one space-joined string), and the call returns Output
// and Err.
type StubCall struct {
	Match  string
	Output string
	Err    error
	used   bool
}

type testingT interface {
	Helper()
	Errorf(format string, args ...any)
	Cleanup(func())
}

// NewStubRunner returns a stub that checks, when the test ends, that every
// expected call was made.
func NewStubRunner(t testingT) *StubRunner {
	s := &StubRunner{t: t}
	t.Cleanup(s.verify)
	return s
}

// Expect adds calls, answered in order of registration among those matching.
func (s *StubRunner) Expect(calls ...StubCall) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, calls...)
}

// Run answers a call with the first unused expected call that matches.
func (s *StubRunner) Run(_ context.Context, _ string, args ...string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	joined := strings.Join(args, " ")
	for i := range s.calls {
		c := &s.calls[i]
		if !c.used && strings.Contains(joined, c.Match) {
			c.used = true
			return c.Output, c.Err
		}
	}
	s.t.Helper()
	s.t.Errorf("unexpected tmux call: %s", joined)
	return "", fmt.Errorf("unexpected tmux call: %s", joined)
}

func (s *StubRunner) verify() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.calls {
		if !c.used {
			s.t.Helper()
			s.t.Errorf("expected tmux call never made: %s", c.Match)
		}
	}
}
