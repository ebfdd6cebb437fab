package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
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

// hardened is given to every git command switchboard runs. An agent can
// write its tree and its branch, and so the configuration and hooks git
// would find there; what is given on the command line is read last and
// wins over every configuration file. These are the settings that name a
// program git runs, or a folder of programs, on its own in the commands
// switchboard uses: fsmonitor on any look at the files, hooks on a commit,
// a merge, a checkout or a ref's update (a hook folder given relative to
// the tree is the agent's files), an external diff, a pager. Filters and
// textconv are named per driver and so cannot be switched off here: they
// are kept out by reading no configuration of the tree's at all (see
// checkout), and by --no-textconv and --no-ext-diff where a diff is made.
var hardened = []string{
	"-c", "core.fsmonitor=false",
	"-c", "core.hooksPath=/dev/null",
	"-c", "diff.external=",
	"-c", "core.pager=cat",
}

// repositoryEnv are the variables that take git to another repository,
// index, work tree or object store than the one it finds, or name a
// program it runs. A switchboard command run from a git hook, or from a
// shell that set them, would otherwise work on what they say: each git
// command here says itself where it works.
var repositoryEnv = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR",
	"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE",
	"GIT_IMPLICIT_WORK_TREE", "GIT_PREFIX", "GIT_GRAFT_FILE", "GIT_SHALLOW_FILE",
	"GIT_REPLACE_REF_BASE", "GIT_ATTR_SOURCE", "GIT_EXTERNAL_DIFF", "GIT_EXEC_PATH",
	"GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER", "GIT_ASKPASS",
}

// gitCmd runs one git command in dir, with env added to the environment,
// and returns its standard output. It is the one place git is started.
// Git's own prompts, editors and pagers are kept out: a command never
// waits for a person.
func gitCmd(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return "", ErrNoGit
	}
	cmd := exec.CommandContext(ctx, "git", append(hardened[:len(hardened):len(hardened)], args...)...)
	cmd.Dir = dir
	cmd.Env = append(gitEnviron(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), &GitError{Dir: dir, Args: args, Stderr: stderr.String(), Err: err}
	}
	return stdout.String(), nil
}

// gitEnviron is this process's environment without repositoryEnv, and
// with git's prompts, editors and pagers set to nothing that waits.
func gitEnviron() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(repositoryEnv, name) {
			env = append(env, kv)
		}
	}
	return append(env, "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "PAGER=cat", "GIT_EDITOR=true", "LC_ALL=C")
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
