package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"golang.org/x/sys/unix"
)

// streams are the process's standard files, passed down so that tests can
// use buffers.
type streams struct {
	in     io.Reader
	out    io.Writer
	errOut io.Writer
	// stdinIsPipe is true when standard input is a pipe or a file, the only
	// cases in which send reads a message body from it unasked.
	stdinIsPipe bool
	// terminal is true when standard input is a terminal, which attach can
	// hand to tmux.
	terminal bool
	// width is the number of columns of the terminal standard output
	// writes to; 0 when it writes to a pipe or a file.
	width int
}

func systemStreams() *streams {
	piped, terminal := false, false
	if fi, err := os.Stdin.Stat(); err == nil {
		mode := fi.Mode()
		piped = mode&os.ModeNamedPipe != 0 || mode.IsRegular()
		terminal = isTerminal(os.Stdin) // not any character device: /dev/null is one
	}
	return &streams{in: os.Stdin, out: os.Stdout, errOut: os.Stderr, stdinIsPipe: piped, terminal: terminal, width: terminalWidth(os.Stdout)}
}

// isTerminal reports whether f is a terminal: only a terminal has a
// window size.
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	return err == nil
}

// terminalWidth is the width of the terminal f is, or 0.
func terminalWidth(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}

// table starts a table on standard output, columns two spaces apart, with
// its header row; Flush prints it.
func (s *streams) table(header ...string) *tabwriter.Writer {
	tw := tabwriter.NewWriter(s.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	return tw
}
