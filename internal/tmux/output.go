package tmux

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
)

// ErrNoControlMode is the error of FollowOutput on a client whose Runner
// does not run the tmux binary (a StubRunner): it has no server to follow.
var ErrNoControlMode = errors.New("this tmux client runs no tmux binary to follow output with")

// OutputFollower is a control-mode client of a session (tmux -C,
// read-only, taking no part in the windows' size) that says which pane
// printed. It sleeps while nothing prints: a quiet team costs nothing. It
// turns no pane's output off: a pane every control client has turned off
// is no longer read by the server, and its program stops.
type OutputFollower struct {
	ended chan error
}

// FollowOutput tells printed the id of a pane of session each time the
// pane's program prints, until ctx is done or the session or server ends.
// printed runs on the follower's goroutine, once per chunk of output, and
// must be quick.
func (c *Client) FollowOutput(ctx context.Context, session string, printed func(pane string)) (*OutputFollower, error) {
	runner, ok := c.run.(ExecRunner)
	if !ok {
		return nil, ErrNoControlMode
	}
	client, err := attachControl(ctx, runner, c.socket, session, "ignore-size,read-only")
	if err != nil {
		return nil, err
	}
	f := &OutputFollower{ended: make(chan error, 1)}
	go func() {
		defer close(f.ended)
		reason := readControl(client.out, printed)
		client.stdin.Close()
		waitErr := client.cmd.Wait()
		switch {
		case ctx.Err() != nil:
			f.ended <- nil
		case reason != "":
			f.ended <- fmt.Errorf("the server ended the control client of session %s: %s", session, reason)
		default:
			f.ended <- &RunError{Args: client.args, Stderr: strings.TrimSpace(client.stderr.String()), Err: waitErr}
		}
	}()
	return f, nil
}

// Ended receives why the following ended (nil when its context ended it),
// and is then closed.
func (f *OutputFollower) Ended() <-chan error { return f.ended }

// attached reads the answer to the attach: what is printed after it is
// heard.
func attached(r *bufio.Reader) error {
	var said []string
	for {
		line, err := r.ReadString('\n')
		line = strings.TrimSuffix(line, "\n")
		switch {
		case strings.HasPrefix(line, "%end "):
			return nil
		case strings.HasPrefix(line, "%error "):
			return errors.New(strings.Join(said, "; "))
		case strings.HasPrefix(line, "%begin "):
		case line != "":
			said = append(said, line)
		}
		if err != nil {
			if len(said) > 0 {
				return errors.New(strings.Join(said, "; "))
			}
			return errors.New("the control client ended before it attached")
		}
	}
}

// readControl reads a control client's notifications to their end, telling
// printed of each %output, and returns the reason of its %exit ("" when it
// gave none, or there was none).
func readControl(r *bufio.Reader, printed func(pane string)) (reason string) {
	midLine := false // the rest of a line longer than the buffer
	for {
		line, err := r.ReadSlice('\n')
		if !midLine {
			switch {
			case bytes.HasPrefix(line, []byte("%output %")):
				pane, _, _ := bytes.Cut(line[len("%output "):], []byte(" "))
				printed(string(pane))
			case bytes.HasPrefix(line, []byte("%exit")):
				reason = strings.TrimSpace(string(line[len("%exit"):]))
				if reason == "" {
					reason = "it said no more"
				}
			}
		}
		midLine = errors.Is(err, bufio.ErrBufferFull)
		if err != nil && !midLine {
			return reason
		}
	}
}
