package tmux

import (
	"errors"
	"strings"
)

// The failures of a tmux command that callers tell apart, in words a person
// reads. A RunError is one of them when tmux's message says so.
var (
	// ErrNoPane means the pane named is not there (any more).
	ErrNoPane = errors.New("no such pane")
	// ErrPaneDead means the pane is there, and the program it ran has
	// ended: it takes no input.
	ErrPaneDead = errors.New("the pane's program has ended")
	// ErrNoSession means the server runs no session of the name given.
	ErrNoSession = errors.New("no such tmux session")
	// ErrNoServer means no tmux server listens on the socket.
	ErrNoServer = errors.New("no tmux server is running")
	// ErrSessionExists means a session of the name given runs already.
	ErrSessionExists = errors.New("a tmux session of that name is already running")
	// ErrServerExited means the server ended while a command was under way:
	// it was stopped, or could not start.
	ErrServerExited = errors.New("the tmux server exited while it was being asked to do something")
)

// failure is the failure tmux's message names, or nil.
func failure(stderr string) error {
	said := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(stderr, w) {
				return true
			}
		}
		return false
	}
	switch {
	case said("can't find pane", "no such pane"):
		return ErrNoPane
	case said("can't find session", "no such session", "no sessions"):
		return ErrNoSession
	case said("no server running"),
		said("error connecting to") && said("No such file or directory", "Connection refused"):
		return ErrNoServer
	case said("duplicate session"):
		return ErrSessionExists
	case said("server exited unexpectedly", "lost server"):
		return ErrServerExited
	}
	return nil
}
