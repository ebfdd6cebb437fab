package tmux

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// errControlEnded is the error of a command sent on a control connection
// that ended before tmux answered it.
var errControlEnded = errors.New("the control connection to tmux ended before tmux answered")

// errNotSent is the error of a command a control connection did not send,
// having ended: it runs in a process of its own instead.
var errNotSent = errors.New("the control connection to tmux has ended")

// controlCommands are the commands a control connection runs: those that
// neither wait nor act on the client that runs them. Any other goes to a
// process of its own: a display-message without -p would show on the
// control client, a wait-for would hold every command behind it.
var controlCommands = map[string]bool{
	"capture-pane": true, "display-message": true, "list-panes": true,
	"send-keys": true, "set-buffer": true, "paste-buffer": true, "delete-buffer": true,
	"set-option": true, "if-shell": true,
}

// ConnectControl makes the client run its commands (those a control client
// can run for it) through one control-mode connection to session (tmux -C,
// taking no part in the windows' size, sent no output), with no process
// started per command, until ctx is done or the connection ends; then each
// command runs in a process of its own again. A connection made earlier is
// ended. On a client whose Runner is not the tmux binary it returns
// ErrNoControlMode.
func (c *Client) ConnectControl(ctx context.Context, session string) error {
	runner, ok := c.run.(ExecRunner)
	if !ok {
		return ErrNoControlMode
	}
	c.mu.Lock()
	old := c.control
	c.control = nil
	c.mu.Unlock()
	if old != nil {
		old.close()
	}
	ctl, err := dialControl(ctx, runner, c.socket, session)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.control = ctl
	c.mu.Unlock()
	go func() {
		<-ctl.done
		c.mu.Lock()
		if c.control == ctl {
			c.control = nil
		}
		c.mu.Unlock()
	}()
	return nil
}

// Controlled reports whether a control connection runs the client's
// commands.
func (c *Client) Controlled() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.control != nil
}

// controlFor is the connection that runs args, or nil when they go to a
// process of their own.
func (c *Client) controlFor(args []string) *control {
	c.mu.Lock()
	ctl := c.control
	c.mu.Unlock()
	if ctl == nil || ctl.ended() || !controlRuns(args) {
		return nil
	}
	return ctl
}

// controlRuns reports whether every command of the list args may run on a
// control connection, and every argument fits on its one line.
func controlRuns(args []string) bool {
	start := true
	for i, arg := range args {
		if strings.ContainsAny(arg, "\n\r") {
			return false
		}
		switch {
		case arg == ";":
			start = true
		case start:
			if !controlCommands[arg] {
				return false
			}
			if arg == "display-message" && !flagBefore(args[i+1:], "-p") {
				return false
			}
			if arg == "if-shell" && !flagBefore(args[i+1:], "-F") {
				return false // a shell command would hold the queue
			}
			start = false
		}
	}
	return true
}

// flagBefore reports whether flag is among the arguments of the command
// that starts args, before the next ";".
func flagBefore(args []string, flag string) bool {
	for _, arg := range args {
		if arg == ";" {
			return false
		}
		if arg == flag {
			return true
		}
	}
	return false
}

// control is one control-mode client: commands go in as lines, each
// followed by a marker whose answer says the command's answers are all in.
type control struct {
	stdin io.WriteCloser
	cmd   *exec.Cmd

	mu     sync.Mutex // the writes and the queue
	queue  []*controlCall
	seq    uint64
	closed bool

	done chan struct{} // closed when the connection ended
}

// controlCall is a command sent and waiting for its answers.
type controlCall struct {
	marker   string
	out      strings.Builder
	errs     []string
	answered chan struct{}
	failed   error // set before answered is closed when tmux never answered
}

// dialControl starts a control client attached to session (taking no part
// in its windows' size, sent no output) and waits until it is attached.
func dialControl(ctx context.Context, runner ExecRunner, socket, session string) (*control, error) {
	c, err := attachControl(ctx, runner, socket, session, "ignore-size,no-output")
	if err != nil {
		return nil, err
	}
	ctl := &control{stdin: c.stdin, cmd: c.cmd, done: make(chan struct{})}
	go ctl.read(c.out)
	return ctl, nil
}

// ended reports whether the connection takes no more commands.
func (ctl *control) ended() bool {
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	return ctl.closed
}

// close ends the connection; calls waiting fail.
func (ctl *control) close() {
	ctl.mu.Lock()
	ctl.closed = true
	ctl.mu.Unlock()
	ctl.stdin.Close()
	<-ctl.done
}

// run sends a command list and waits for its answers: what its commands
// printed, or the error of the one that failed (tmux runs no more of the
// list after it), as a process would have printed them.
func (ctl *control) run(ctx context.Context, args []string) (string, error) {
	call := &controlCall{answered: make(chan struct{})}
	var line strings.Builder
	for i, arg := range args {
		if i > 0 {
			line.WriteByte(' ')
		}
		line.WriteString(controlQuote(arg))
	}
	ctl.mu.Lock()
	if ctl.closed {
		ctl.mu.Unlock()
		return "", errNotSent
	}
	ctl.seq++
	call.marker = "switchboard-answered-" + strconv.FormatUint(ctl.seq, 10)
	// The marker goes on a line of its own: tmux skips the rest of a
	// line's commands after one fails, never the next line.
	fmt.Fprintf(&line, "\ndisplay-message -p %s\n", call.marker)
	ctl.queue = append(ctl.queue, call)
	_, err := io.WriteString(ctl.stdin, line.String())
	if err != nil {
		ctl.queue = ctl.queue[:len(ctl.queue)-1] // nothing of it reached tmux
		ctl.closed = true
	}
	ctl.mu.Unlock()
	if err != nil {
		ctl.stdin.Close() // the reader fails the calls queued
		return "", errNotSent
	}
	select {
	case <-call.answered:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	if call.failed != nil {
		return "", &RunError{Args: args, Err: call.failed}
	}
	if len(call.errs) > 0 {
		return call.out.String(), &RunError{Args: args, Stderr: strings.Join(call.errs, "\n"), Err: errors.New("tmux refused the command")}
	}
	return call.out.String(), nil
}

// controlQuote is arg as tmux's command parser reads it back whole: in
// single quotes, where nothing is expanded, a quote written as '\”. The
// separator of a command list stays bare.
func controlQuote(arg string) string {
	if arg == ";" {
		return arg
	}
	return "'" + strings.ReplaceAll(arg, "'", `'\''`) + "'"
}

// read hands each answer to the call it belongs to, until the connection
// ends; then every call still waiting fails.
func (ctl *control) read(r *bufio.Reader) {
	defer func() {
		ctl.mu.Lock()
		ctl.closed = true
		queue := ctl.queue
		ctl.queue = nil
		ctl.mu.Unlock()
		for _, call := range queue {
			call.failed = errControlEnded
			close(call.answered)
		}
		ctl.stdin.Close()
		ctl.cmd.Wait()
		close(ctl.done)
	}()
	var (
		guard   string // the numbers of the answer being read; "" between answers
		content strings.Builder
	)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return // a last line without its newline is no whole answer
		}
		line = strings.TrimSuffix(line, "\n")
		if guard == "" {
			switch {
			case strings.HasPrefix(line, "%begin "):
				guard = strings.TrimPrefix(line, "%begin ")
				content.Reset()
			case strings.HasPrefix(line, "%exit"):
				return
			}
			continue // a notification
		}
		// A pane may print a line like the end of an answer: only the one
		// with the numbers of its beginning ends it.
		failed := line == "%error "+guard
		if !failed && line != "%end "+guard {
			content.WriteString(line)
			content.WriteByte('\n')
			continue
		}
		guard = ""
		ctl.answer(content.String(), failed)
	}
}

// answer gives one command's answer to the first call waiting: its marker's
// answers that call.
func (ctl *control) answer(text string, failed bool) {
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	if len(ctl.queue) == 0 {
		return // the attach's own, or a command's from before a call
	}
	call := ctl.queue[0]
	switch {
	case failed:
		call.errs = append(call.errs, strings.TrimSuffix(text, "\n"))
	case text == call.marker+"\n":
		ctl.queue = ctl.queue[1:]
		close(call.answered)
	default:
		call.out.WriteString(text)
	}
}

// controlClient is a tmux -C client attached to a session: its input, its
// process, what it says, and what it said on stderr.
type controlClient struct {
	stdin  io.WriteCloser
	cmd    *exec.Cmd
	out    *bufio.Reader
	stderr *bytes.Buffer
	args   []string
}

// attachControl starts a control client attached to session with the
// client flags given, and waits for tmux's answer to the attach: what is
// read from it after that is news.
func attachControl(ctx context.Context, runner ExecRunner, socket, session, flags string) (*controlClient, error) {
	path := runner.Path
	if path == "" {
		path = "tmux"
	}
	args := []string{"-L", socket, "-f", "/dev/null", "-C", "attach-session", "-f", flags, "-t", "=" + session}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = withoutTMUX(os.Environ())
	c := &controlClient{cmd: cmd, stderr: &bytes.Buffer{}, args: args}
	cmd.Stderr = c.stderr
	// The client ends when its input does: the pipe is held open until the
	// client is done with, or ctx is and the process killed.
	var err error
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("attach to session %s: %w", session, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("attach to session %s: %w", session, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, &RunError{Args: args, Err: err}
	}
	c.out = bufio.NewReaderSize(stdout, 64<<10)
	if err := attached(c.out); err != nil {
		c.stdin.Close()
		cmd.Wait()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &RunError{Args: args, Stderr: strings.TrimSpace(err.Error() + "\n" + c.stderr.String()), Err: err}
	}
	return c, nil
}
