package program

import (
	"errors"
	"fmt"
)

// Exit codes, the same for every command of every program: one kind of
// failure, one code.
const (
	ExitOK = 0
	// ExitError is anything else: git, tmux, the disk, a master not running.
	ExitError = 1
	// ExitUsage is a mistake in the command line: an unknown command or
	// flag, an argument missing or bad, a name or an id of nothing.
	ExitUsage = 2
	// ExitRefused is refused by the rules, a right they do not give, or a
	// lock.
	ExitRefused  = 3
	ExitTimedOut = 4
)

// CodedError carries the exit code a failure ends the process with.
type CodedError struct {
	Code int
	Err  error
}

func (e *CodedError) Error() string { return e.Err.Error() }
func (e *CodedError) Unwrap() error { return e.Err }

// Usage is a mistake in the command line.
func Usage(format string, args ...any) error {
	return &CodedError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// ErrSaid ends a command whose output has said all there is: the process
// exits with the code, and nothing more is printed.
var ErrSaid = errors.New("said on the output")

// Exit ends a command that said all there is with code.
func Exit(code int) error { return &CodedError{Code: code, Err: ErrSaid} }

// CodeOf is the exit code err carries, and whether it carries one.
func CodeOf(err error) (int, bool) {
	if err == nil {
		return ExitOK, true
	}
	var coded *CodedError
	if errors.As(err, &coded) {
		return coded.Code, true
	}
	return ExitError, false
}
