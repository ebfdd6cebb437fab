package tmux

import (
	"bytes"
	"context"
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
}

// RunError is a failed tmux call, with what was asked and what tmux said.
type RunError struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *RunError) Error() string {
	msg := fmt.Sprintf("tmux %s: %v", strings.Join(e.Args, " "), e.Err)
	if e.Stderr != "" {
		msg += ": " + e.Stderr
	}
	return msg
}

// Unwrap gives the process's error, and ErrNoPane when tmux said the pane
// it was given is gone.
func (e *RunError) Unwrap() []error {
	if noPane(e.Stderr) {
		return []error{e.Err, ErrNoPane}
	}
	return []error{e.Err}
}

// Run runs tmux with args. TMUX is removed from the environment so that the
// call reaches the server named by -L, not the one the caller sits in.
func (r ExecRunner) Run(ctx context.Context, stdin string, args ...string) (string, error) {
	path := r.Path
	if path == "" {
		path = "tmux"
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = withoutTMUX(os.Environ())
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
