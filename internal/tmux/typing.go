package tmux

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"switchboard/internal/watch"
)

// ErrNotSubmitted means the text reached the pane but stayed on its input
// line after every Enter: the program did not take it.
var ErrNotSubmitted = errors.New("typed line was not submitted")

// TypeOptions tune SendLine; the zero value uses the defaults.
type TypeOptions struct {
	// Pause is the longest wait between the paste and Enter. Enter goes as
	// soon as the pasted text shows on screen: an agent TUI takes an Enter
	// that comes before it has read the whole paste as part of the paste,
	// not a submit. A program that never shows the text (one that does not
	// echo, an input box that folds a paste into a placeholder) gets Enter
	// after all of Pause.
	Pause time.Duration
	// Settle is the least wait between the paste and Enter, for a program
	// that draws a paste before it takes an Enter as a key of its own
	// (Gemini CLI).
	Settle time.Duration
	// Retries of Enter when the line is still there.
	Retries int
	// Check is how long to watch for the line to leave after each Enter.
	Check time.Duration

	// fixedPause waits all of Pause before Enter, as SendLine did before it
	// looked for the paste on screen: the benchmark's way to compare.
	fixedPause bool
}

// Default typing timings.
const (
	DefaultPause = 300 * time.Millisecond
	DefaultCheck = 500 * time.Millisecond
	EscapePause  = 200 * time.Millisecond
)

func (o TypeOptions) withDefaults() TypeOptions {
	if o.Pause <= 0 {
		o.Pause = DefaultPause
	}
	if o.Retries <= 0 {
		o.Retries = 2
	}
	if o.Check <= 0 {
		o.Check = DefaultCheck
	}
	return o
}

// Typed reports what SendLine did.
type Typed struct {
	Text     string // what was typed, after Sanitize
	Enters   int    // Enter presses sent
	Verified bool   // the line was seen on the input line and then seen to leave
}

// SendLine types one line into a pane and submits it. The text is sanitized
// to one line; copy mode is left first; the text goes as one bracketed paste;
// Enter follows as soon as the paste shows on the cursor's input line or in
// the bottom rows of the screen, or after opts.Pause when it does not show;
// then the pane is checked until the line has left its input line, with
// Enter retried. A program that does not echo its input cannot be checked:
// that is reported as Verified false, not as success or failure.
// ErrNotSubmitted is returned when the line stayed.
func (c *Client) SendLine(ctx context.Context, pane, text string, opts TypeOptions) (Typed, error) {
	opts = opts.withDefaults()
	typed := Typed{Text: Sanitize(text)}
	if typed.Text == "" {
		return typed, fmt.Errorf("type into %s: nothing to type after removing control characters", pane)
	}
	p := c.pane(pane)
	p.mu.Lock()
	defer p.mu.Unlock()

	line, inMode, err := c.inputLine(ctx, pane)
	if err != nil {
		return typed, err
	}
	if inMode {
		if _, err := c.command(ctx, "send-keys", "-t", pane, "-X", "cancel"); err != nil {
			return typed, err
		}
	}
	tail := tailOf(typed.Text, 24)
	bottom, err := c.bottomRows(ctx, pane)
	if err != nil {
		return typed, err
	}
	// The same text may show already (an earlier notice): only one more
	// copy of it is the paste.
	before := sightings{line: strings.Count(line, tail), bottom: strings.Count(bottom, tail)}
	p.bufferID++
	buffer := fmt.Sprintf("switchboard-%s-%d", strings.TrimPrefix(pane, "%"), p.bufferID)
	if err := c.paste(ctx, pane, buffer, typed.Text); err != nil {
		return typed, err
	}
	p.lastKey = "text"
	pasted := time.Now()
	if line, err = c.awaitPaste(ctx, pane, tail, before, opts); err != nil {
		return typed, err
	}
	if err := watch.Sleep(ctx, time.Until(pasted.Add(opts.Settle))); err != nil {
		return typed, err
	}
	echoed := strings.Contains(line, tail)
	for typed.Enters <= opts.Retries {
		if _, err := c.command(ctx, "send-keys", "-t", pane, "Enter"); err != nil {
			return typed, err
		}
		typed.Enters++
		if !echoed {
			return typed, nil // nothing to check against
		}
		left, err := c.waitLineLeaves(ctx, pane, tail, opts.Check)
		if err != nil {
			return typed, err
		}
		if left {
			typed.Verified = true
			return typed, nil
		}
	}
	return typed, fmt.Errorf("type into %s: %w after %d Enter presses", pane, ErrNotSubmitted, typed.Enters)
}

// paste puts text in the named buffer and pastes it into pane, bracketed,
// deleting the buffer; ErrPaneDead when the pane's program has ended. On a
// control connection the text goes as an argument, quoted; to a process it
// goes on standard input, where no trailing ";" can be read as the end of
// a command.
func (c *Client) paste(ctx context.Context, pane, buffer, text string) error {
	pasteArgs := livePaste(pane, buffer)
	set := append([]string{"set-buffer", "-b", buffer, "--", text, ";"}, pasteArgs...)
	if ctl := c.controlFor(set); ctl != nil {
		out, err := ctl.run(ctx, set)
		if !errors.Is(err, errNotSent) {
			return pasted(pane, out, err)
		}
	}
	out, err := c.commandInput(ctx, text, append([]string{"load-buffer", "-b", buffer, "-", ";"}, pasteArgs...)...)
	return pasted(pane, out, err)
}

// deadMark is what livePaste prints for a pane whose program has ended.
const deadMark = "switchboard: the program in the pane has ended"

// livePaste pastes the buffer into the pane only while its program runs:
// tmux 3.3a (Debian 12's) dereferences a null pointer pasting into a dead
// pane, and the whole server, every agent's pane with it, goes down. The
// pane is looked at in the same turn of the server as the paste; a dead
// one has the buffer deleted, and says so.
func livePaste(pane, buffer string) []string {
	return []string{"if-shell", "-F", "-t", pane, "#{pane_dead}",
		"delete-buffer -b " + buffer + " ; display-message -p '" + deadMark + "'",
		"paste-buffer -d -p -r -b " + buffer + " -t " + pane}
}

// pasted is the error of a paste livePaste made, given what it printed.
func pasted(pane, out string, err error) error {
	if err == nil && strings.Contains(out, deadMark) {
		return fmt.Errorf("paste into %s: %w", pane, ErrPaneDead)
	}
	return err
}

// sightings count the copies of a typed line's tail where a program draws
// what it is typed: on the cursor's input line, and in the bottom rows,
// where an input box the cursor is not on is drawn (Gemini CLI's).
type sightings struct{ line, bottom int }

// pasteCheckEvery is how often the screen is looked at for a paste: each
// look is two or three commands, and the paste shows after a look or two.
const pasteCheckEvery = 10 * time.Millisecond

// awaitPaste waits until one more copy of tail than before shows on the
// pane's input line or in its bottom rows, or until opts.Pause has passed,
// and returns the input line last read. A TUI that has drawn the pasted
// text has read the whole bracketed paste, so the Enter that follows is
// read as a key of its own, not as part of the paste: Enter need not wait
// out a fixed pause. A program that never shows the text gets Enter after
// the whole pause.
func (c *Client) awaitPaste(ctx context.Context, pane, tail string, before sightings, opts TypeOptions) (string, error) {
	if opts.fixedPause {
		if err := watch.Sleep(ctx, opts.Pause); err != nil {
			return "", err
		}
		line, _, err := c.inputLine(ctx, pane)
		return line, err
	}
	var (
		line string
		err  error
	)
	watch.Until(ctx, pasteCheckEvery, opts.Pause, func() bool {
		if line, _, err = c.inputLine(ctx, pane); err != nil || strings.Count(line, tail) > before.line {
			return true
		}
		var bottom string
		if bottom, err = c.bottomRows(ctx, pane); err != nil {
			return true
		}
		if strings.Count(bottom, tail) <= before.bottom {
			return false
		}
		// Read again: the paste may have reached the input line since.
		line, _, err = c.inputLine(ctx, pane)
		return true
	})
	if err == nil {
		err = ctx.Err()
	}
	return line, err
}

// lineCheckEvery is how often a typed line is looked for on its input line
// after Enter: each look is two tmux commands, and a hundred agents may be
// typed to at once.
const lineCheckEvery = 50 * time.Millisecond

// waitLineLeaves polls the pane's input line until it no longer holds tail.
func (c *Client) waitLineLeaves(ctx context.Context, pane, tail string, limit time.Duration) (bool, error) {
	var err error
	left := watch.Until(ctx, lineCheckEvery, limit, func() bool {
		var line string
		if line, _, err = c.inputLine(ctx, pane); err != nil {
			return true // stop looking; the error says why
		}
		return !strings.Contains(line, tail)
	})
	if err == nil {
		err = ctx.Err()
	}
	return left && err == nil, err
}

// Interrupt sends ESC alone, then pauses, so that the next keys are not read
// as Alt-key. A second ESC with nothing typed in between is not sent: two in
// a row mean something else to some programs (Claude Code's "rewind").
func (c *Client) Interrupt(ctx context.Context, pane string) error {
	p := c.pane(pane)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lastKey != "escape" {
		if _, err := c.command(ctx, "send-keys", "-t", pane, "Escape"); err != nil {
			return err
		}
		p.lastKey = "escape"
	}
	return watch.Sleep(ctx, EscapePause)
}

func tailOf(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[len(r)-n:])
}

// inputRows is how far up from the last drawn row an agent TUI's input box
// may reach, with the hints and status lines below it.
const inputRows = 12

// bottomRows is the text of the pane's last inputRows drawn rows, wrapped
// rows joined: where an agent TUI's input box is, wherever its cursor.
func (c *Client) bottomRows(ctx context.Context, pane string) (string, error) {
	screen, err := c.command(ctx, "capture-pane", "-p", "-J", "-t", pane)
	if err != nil {
		return "", err
	}
	rows := strings.Split(strings.TrimRight(screen, "\n "), "\n")
	return strings.Join(rows[max(0, len(rows)-inputRows):], "\n"), nil
}

// Resubmit finishes a line SendLine typed into a program that gave no other
// sign of taking it: when the line still shows near the bottom of the
// screen (in an input box the cursor is not on, or above the newline an Enter
// read as one put there), Enter again; when it does not, the paste was
// lost (a program not yet reading its input), so it is typed again, unless
// it was seen on the input line: then it reached the program, and is never
// typed twice.
func (c *Client) Resubmit(ctx context.Context, pane string, typed Typed, opts TypeOptions) (Typed, error) {
	opts = opts.withDefaults()
	bottom, err := c.bottomRows(ctx, pane)
	if err != nil {
		return typed, err
	}
	if strings.Contains(bottom, tailOf(typed.Text, 24)) {
		p := c.pane(pane)
		p.mu.Lock()
		defer p.mu.Unlock()
		_, err := c.command(ctx, "send-keys", "-t", pane, "Enter")
		typed.Enters++
		return typed, err
	}
	if typed.Verified {
		return typed, nil
	}
	again, err := c.SendLine(ctx, pane, typed.Text, opts)
	again.Enters += typed.Enters
	return again, err
}
