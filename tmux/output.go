package tmux

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// ErrNoControlMode is the error of FollowOutput on a client whose Runner
// does not run the tmux binary (a StubRunner): it has no server to follow.
var ErrNoControlMode = errors.New("this tmux client runs no tmux binary to follow output with")

// FollowOutput tells printed the id of a pane of session each time the
// pane's program prints, until ctx is done or the session or server ends.
// It is one control-mode client of the server (tmux -C, read-only, taking
// no part in the windows' size), which sleeps while nothing prints: a
// quiet team costs nothing. printed runs on the follower's goroutine, once
// per chunk of output, and must be quick.
//
// The returned channel receives why the following ended (nil when ctx
// ended it) and is closed.
func (c *Client) FollowOutput(ctx context.Context, session string, printed func(pane string)) (<-chan error, error) {
	runner, ok := c.run.(ExecRunner)
	if !ok {
		return nil, ErrNoControlMode
	}
	path := runner.Path
	if path == "" {
		path = "tmux"
	}
	args := []string{"-L", c.socket, "-f", "/dev/null", "-C", "attach-session", "-f", "ignore-size,read-only", "-t", "=" + session}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = withoutTMUX(os.Environ())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	// The client ends when its input does: the pipe is held open until
	// ctx is done and the process killed.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("follow the output of session %s: %w", session, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("follow the output of session %s: %w", session, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, &RunError{Args: args, Err: err}
	}
	ended := make(chan error, 1)
	go func() {
		defer close(ended)
		reason := readControl(bufio.NewReaderSize(stdout, 64<<10), printed)
		stdin.Close()
		waitErr := cmd.Wait()
		switch {
		case ctx.Err() != nil:
			ended <- nil
		case reason != "":
			ended <- fmt.Errorf("the server ended the control client of session %s: %s", session, reason)
		default:
			ended <- &RunError{Args: args, Stderr: strings.TrimSpace(stderr.String()), Err: waitErr}
		}
	}()
	return ended, nil
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
