package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// ErrNoGit is returned when the git command is not installed.
var ErrNoGit = errors.New("git is not installed")

// GitError is a git command that failed: what was asked, and what git said.
type GitError struct {
	Dir    string
	Args   []string
	Stderr string
	Err    error
}

func (e *GitError) Error() string {
	said := strings.TrimSpace(e.Stderr)
	if said == "" {
		said = e.Err.Error()
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), said)
}

func (e *GitError) Unwrap() error { return e.Err }

// git runs one git command in dir and returns its standard output. Git's
// own prompts and pagers are kept out: a command never waits for a person.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return "", ErrNoGit
	}
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "PAGER=cat", "LC_ALL=C")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), &GitError{Dir: dir, Args: args, Stderr: stderr.String(), Err: err}
	}
	return stdout.String(), nil
}

// lines splits git's output into its non-empty lines.
func lines(out string) []string {
	var ls []string
	for _, l := range strings.Split(out, "\n") {
		if l != "" {
			ls = append(ls, l)
		}
	}
	return ls
}
