package tmux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Runner runs one tmux process and returns its standard output.
type Runner interface {
	Run(ctx context.Context, stdin string, args ...string) (string, error)
}

// ExecRunner runs the tmux binary found on PATH (or at Path).
type ExecRunner struct {
	Path string
	// KeepTMUX leaves TMUX in the environment, for a call meant for the
	// server the caller runs in (see Enclosing).
	KeepTMUX bool
}

// RunError is a failed tmux call. Its message is a sentence for a person;
// what was asked (Args) and what tmux said (Stderr) are kept for whoever
// debugs it, and errors.Is tells the failures callers act on (ErrNoPane,
// ErrNoSession, ErrNoServer, ErrSessionExists, ErrServerExited).
type RunError struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *RunError) Error() string {
	if known := failure(e.Stderr); known != nil {
		return known.Error()
	}
	var exit *exec.ExitError
	switch {
	case e.Stderr != "":
		return "tmux said: " + firstLine(e.Stderr)
	case errors.As(e.Err, &exit) && exit.Exited():
		return fmt.Sprintf("tmux failed with status %d and said nothing", exit.ExitCode())
	case errors.As(e.Err, &exit):
		return "tmux was stopped before it answered"
	default:
		return fmt.Sprintf("could not run tmux: %v", e.Err)
	}
}

// Unwrap gives the process's error, and the failure tmux said it met when
// it is one of those this package names.
func (e *RunError) Unwrap() []error {
	if known := failure(e.Stderr); known != nil {
		return []error{e.Err, known}
	}
	return []error{e.Err}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// Run runs tmux with args. TMUX is removed from the environment, unless
// KeepTMUX, so that the call reaches the server named by -L, not the one
// the caller sits in.
func (r ExecRunner) Run(ctx context.Context, stdin string, args ...string) (string, error) {
	path := r.Path
	if path == "" {
		path = "tmux"
	}
	cmd := exec.CommandContext(ctx, path, args...)
	if !r.KeepTMUX {
		cmd.Env = withoutTMUX(os.Environ())
	}
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), &RunError{Args: args, Stderr: strings.TrimSpace(stderr.String()), Err: err}
	}
	return stdout.String(), nil
}

func withoutTMUX(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TMUX=") {
			out = append(out, kv)
		}
	}
	return out
}
