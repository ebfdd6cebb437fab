package tmux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"switchboard/internal/safetext"
)

// Client talks to one private tmux server.
type Client struct {
	socket string
	run    Runner

	mu      sync.Mutex
	panes   map[string]*paneState // one writer per pane at a time
	control *control              // runs the commands it can; nil when none is connected
}

type paneState struct {
	mu       sync.Mutex
	lastKey  string // "escape" after an interrupt, until text follows
	bufferID int
}

// NewClient returns a client of the server on socket name socket (tmux -L).
func NewClient(socket string, run Runner) *Client {
	if run == nil {
		run = ExecRunner{}
	}
	return &Client{socket: socket, run: run, panes: make(map[string]*paneState)}
}

// Socket is the server's socket name.
func (c *Client) Socket() string { return c.socket }

// command runs one tmux command (or a command list joined with ";").
func (c *Client) command(ctx context.Context, args ...string) (string, error) {
	return c.commandInput(ctx, "", args...)
}

// commandInput runs a command with stdin.
func (c *Client) commandInput(ctx context.Context, stdin string, args ...string) (string, error) {
	if stdin == "" {
		if ctl := c.controlFor(args); ctl != nil {
			if out, err := ctl.run(ctx, args); !errors.Is(err, errNotSent) {
				return out, err
			}
		}
	}
	full := append([]string{"-L", c.socket, "-f", "/dev/null"}, args...)
	return c.run.Run(ctx, stdin, full...)
}

// AttachCommand is the command that hands a terminal to a session until
// the person detaches; the caller connects its standard files.
func (c *Client) AttachCommand(session string) *exec.Cmd {
	cmd := exec.Command("tmux", "-L", c.socket, "-f", "/dev/null", "attach-session", "-t", "="+session)
	cmd.Env = withoutTMUX(os.Environ())
	return cmd
}

// Installed reports whether a tmux binary is on PATH.
func Installed() bool {
	_, err := exec.LookPath("tmux")
	return err == nil
}

// Version is what the tmux on PATH says it is ("tmux 3.4").
func Version(ctx context.Context) (string, error) {
	out, err := ExecRunner{}.Run(ctx, "", "-V")
	if err != nil {
		return "", fmt.Errorf("ask tmux its version: %w", err)
	}
	return strings.TrimSpace(out), nil
}

// PaneSpec describes the process to start in a new pane.
type PaneSpec struct {
	Dir     string
	Env     map[string]string
	Command []string // run by tmux through the shell when a single string
}

func (p PaneSpec) args() []string {
	var args []string
	if p.Dir != "" {
		args = append(args, "-c", p.Dir)
	}
	for _, kv := range p.envPairs() {
		args = append(args, "-e", kv)
	}
	return append(args, p.Command...)
}

func (p PaneSpec) envPairs() []string {
	pairs := make([]string, 0, len(p.Env))
	for k, v := range p.Env {
		pairs = append(pairs, k+"="+v)
	}
	sort.Strings(pairs)
	return pairs
}

// sessionArgs are args for the first pane of a new session. There -e would
// set the session's environment, which every window opened in it later
// inherits (a person's Ctrl-b c would act as the first agent): the pane's
// environment is given to its command by env(1) instead.
func (p PaneSpec) sessionArgs() []string {
	var args []string
	if p.Dir != "" {
		args = append(args, "-c", p.Dir)
	}
	if len(p.Env) == 0 {
		return append(args, p.Command...)
	}
	if len(p.Command) == 1 { // a shell command line
		words := []string{"env"}
		for _, kv := range p.envPairs() {
			words = append(words, safetext.ShellWord(kv))
		}
		return append(args, strings.Join(words, " ")+" "+p.Command[0])
	}
	args = append(args, "env")
	args = append(args, p.envPairs()...)
	return append(args, p.Command...)
}

// NewSession starts a detached session whose first window is named window
// and returns the id of its first pane. Dead panes stay on screen with their
// exit status (remain-on-exit) and what their program printed last, so
// that a crashed agent can be seen.
func (c *Client) NewSession(ctx context.Context, session, window string, width, height int, pane PaneSpec) (string, error) {
	// remain-on-exit is set before the first pane starts: a program that
	// exits at once would otherwise end the only session, and the server.
	args := []string{"start-server", ";", "set-option", "-g", "remain-on-exit", "on", ";"}
	args = append(args, keepLastWords()...)
	args = append(args, "new-session", "-d", "-s", session, "-n", window, "-x", strconv.Itoa(width), "-y", strconv.Itoa(height), "-P", "-F", "#{pane_id}")
	out, err := c.command(ctx, append(args, pane.sessionArgs()...)...)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// SetSessionEnv sets a variable in the session's environment, which the
// windows a person opens there later start with.
func (c *Client) SetSessionEnv(ctx context.Context, session, name, value string) error {
	_, err := c.command(ctx, "set-environment", "-t", "="+session, name, value)
	return err
}

// SetSessionOption sets an option of the session alone.
func (c *Client) SetSessionOption(ctx context.Context, session, name, value string) error {
	_, err := c.command(ctx, "set-option", "-t", "="+session+":", name, value)
	return err
}

// NewWindow adds a window to a session and returns its first pane's id.
func (c *Client) NewWindow(ctx context.Context, session, window string, pane PaneSpec) (string, error) {
	args := []string{"new-window", "-d", "-t", "=" + session + ":", "-n", window, "-P", "-F", "#{pane_id}"}
	out, err := c.command(ctx, append(args, pane.args()...)...)
	return strings.TrimSpace(out), err
}

// SplitWindow splits the window holding target and returns the new pane's id.
func (c *Client) SplitWindow(ctx context.Context, target string, pane PaneSpec) (string, error) {
	args := []string{"split-window", "-d", "-t", target, "-P", "-F", "#{pane_id}"}
	out, err := c.command(ctx, append(args, pane.args()...)...)
	return strings.TrimSpace(out), err
}

// HasSession reports whether the server runs a session of exactly this name.
func (c *Client) HasSession(ctx context.Context, session string) (bool, error) {
	_, err := c.command(ctx, "has-session", "-t", "="+session)
	if err == nil {
		return true, nil
	}
	var runErr *RunError
	if errors.As(err, &runErr) {
		var exitErr *exec.ExitError
		if errors.As(runErr.Err, &exitErr) {
			return false, nil // no such session, or no server at all
		}
	}
	return false, err
}

// ServerPID is the server's process id; pane ids are only unique within it.
func (c *Client) ServerPID(ctx context.Context) (int, error) {
	out, err := c.command(ctx, "display-message", "-p", "#{pid}")
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		return 0, fmt.Errorf("tmux server pid %q: %w", strings.TrimSpace(out), err)
	}
	return pid, nil
}

// KillServer stops the server and every pane in it.
func (c *Client) KillServer(ctx context.Context) error {
	_, err := c.command(ctx, "kill-server")
	return err
}

func (c *Client) pane(id string) *paneState {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.panes[id]
	if !ok {
		p = &paneState{}
		c.panes[id] = p
	}
	return p
}

// Window is the target of a session's window, matched exactly.
func Window(session, window string) string { return "=" + session + ":" + window }

// SendKeys presses keys in a pane, as a person at it would: each a key
// name tmux knows ("Tab", "Enter") or a character.
func (c *Client) SendKeys(ctx context.Context, pane string, keys ...string) error {
	p := c.pane(pane)
	p.mu.Lock()
	defer p.mu.Unlock()
	_, err := c.command(ctx, append([]string{"send-keys", "-t", pane}, keys...)...)
	p.lastKey = "text"
	return err
}

// SelectWindow makes a window (see Window) the one its session shows.
func (c *Client) SelectWindow(ctx context.Context, window string) error {
	_, err := c.command(ctx, "select-window", "-t", window)
	return err
}

// SelectPane puts the keyboard in a pane: its window becomes the one its
// session shows, and the pane the window's active one.
func (c *Client) SelectPane(ctx context.Context, pane string) error {
	_, err := c.command(ctx, "select-window", "-t", pane, ";", "select-pane", "-t", pane)
	return err
}

// SelectLayout arranges the panes of a window ("tiled", ...).
func (c *Client) SelectLayout(ctx context.Context, window, layout string) error {
	_, err := c.command(ctx, "select-layout", "-t", window, layout)
	return err
}

// SplitBelow opens a pane across the whole width of a window, lines high,
// along its bottom, and returns its id.
func (c *Client) SplitBelow(ctx context.Context, window string, lines int, pane PaneSpec) (string, error) {
	args := []string{"split-window", "-d", "-f", "-v", "-l", strconv.Itoa(lines), "-t", window, "-P", "-F", "#{pane_id}"}
	out, err := c.command(ctx, append(args, pane.args()...)...)
	return strings.TrimSpace(out), err
}

// RespawnPane runs command in the pane anew, killing what runs there; the
// pane keeps its id.
func (c *Client) RespawnPane(ctx context.Context, target string, command ...string) error {
	_, err := c.command(ctx, append([]string{"respawn-pane", "-k", "-t", target}, command...)...)
	return err
}

// RespawnSpec runs the program of a pane whose program ended anew, as spec
// says (its folder, environment and command); the pane keeps its id. A
// pane whose program runs (a person started one meanwhile) is refused by
// tmux, and left alone.
func (c *Client) RespawnSpec(ctx context.Context, pane string, spec PaneSpec) error {
	_, err := c.command(ctx, append([]string{"respawn-pane", "-t", pane}, spec.args()...)...)
	return err
}

// KillPane closes a pane; ErrNoPane when it is gone already.
func (c *Client) KillPane(ctx context.Context, pane string) error {
	_, err := c.command(ctx, "kill-pane", "-t", pane)
	return err
}

// Display shows a line on the pane's client for d, without typing it. The
// line is a tmux format, in which #(...) runs a command and #{...} expands:
// every # of the text is doubled, so that tmux shows it and does nothing.
func (c *Client) Display(ctx context.Context, pane, text string, d time.Duration) error {
	_, err := c.command(ctx, "display-message", "-d", strconv.FormatInt(d.Milliseconds(), 10), "-t", pane, literalFormat(Sanitize(text)))
	return err
}

// literalFormat is a tmux format that shows text as it is.
func literalFormat(text string) string { return strings.ReplaceAll(text, "#", "##") }

// TypeCommand types a command line into a shell's pane, key by key, and
// presses Enter, leaving copy mode first: what a person at the pane does.
// Programs that take pastes should get SendLine instead.
func (c *Client) TypeCommand(ctx context.Context, pane, command string) error {
	p := c.pane(pane)
	p.mu.Lock()
	defer p.mu.Unlock()
	_, err := c.command(ctx, "if-shell", "-F", "-t", pane, "#{pane_in_mode}", "send-keys -X -t "+pane+" cancel", ";",
		"send-keys", "-t", pane, "-l", command, ";", "send-keys", "-t", pane, "Enter")
	p.lastKey = "text"
	return err
}
