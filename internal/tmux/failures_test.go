package tmux

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestFailuresReadAsSentences makes tmux fail the ways a team meets, on a
// real server: each error says what happened in words, names no tmux
// command line, and is the failure a caller can test for; the command line
// and tmux's own message stay in the RunError.
func TestFailuresReadAsSentences(t *testing.T) {
	c, _ := newServer(t, "sleep", "600")
	ctx := context.Background()
	gone := NewClient(c.Socket()+"-none", nil)
	for _, tc := range []struct {
		name string
		call func() error
		want error
		says string
	}{
		{"a session of a name taken", func() error {
			_, err := c.NewSession(ctx, "test", "main", 80, 24, PaneSpec{Command: []string{"sleep", "600"}})
			return err
		}, ErrSessionExists, "a tmux session of that name is already running"},
		{"a pane that is gone", func() error { return c.KillPane(ctx, "%999") }, ErrNoPane, "no such pane"},
		{"a window of a session that is not there", func() error {
			_, err := c.NewWindow(ctx, "other", "w", PaneSpec{Command: []string{"sleep", "600"}})
			return err
		}, ErrNoSession, "no such tmux session"},
		{"no server", func() error { _, err := gone.ServerPID(ctx); return err }, ErrNoServer, "no tmux server is running"},
		{"something else", func() error { return c.SetSessionOption(ctx, "test", "no-such-option", "1") }, nil, "tmux said: invalid option: no-such-option"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("error %q is not %q", msg, tc.want)
			}
			if !strings.Contains(msg, tc.says) {
				t.Errorf("error %q; want it to say %q", msg, tc.says)
			}
			for _, raw := range []string{"exit status", "-L ", c.Socket(), "/dev/null"} {
				if strings.Contains(msg, raw) {
					t.Errorf("error %q shows %q", msg, raw)
				}
			}
			var runErr *RunError
			if !errors.As(err, &runErr) || len(runErr.Args) == 0 || runErr.Stderr == "" {
				t.Errorf("error %q does not keep the command and what tmux said: %#v", msg, runErr)
			}
		})
	}
}
