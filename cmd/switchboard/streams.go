package main

import (
	"io"
	"os"
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
}

func systemStreams() *streams {
	piped, terminal := false, false
	if fi, err := os.Stdin.Stat(); err == nil {
		mode := fi.Mode()
		piped = mode&os.ModeNamedPipe != 0 || mode.IsRegular()
		terminal = mode&os.ModeCharDevice != 0
	}
	return &streams{in: os.Stdin, out: os.Stdout, errOut: os.Stderr, stdinIsPipe: piped, terminal: terminal}
}
