package worktree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// AddOptions say how to make an agent's tree.
type AddOptions struct {
	Agent string
	// Dir is the folder of the trees; "" is DefaultDir. The agent's tree is
	// Dir/<agent>.
	Dir string
	// Base is the commit or ref a new tree starts from; "" is the main
	// checkout's HEAD now.
	Base string
	// Copy are files git ignores to copy in from the main checkout (.env),
	// as paths or glob patterns relative to its top. A file the tree has
	// already is never overwritten.
	Copy []string
	// Setup is a shell command run once in a new tree, within SetupTimeout
	// (0 is DefaultSetupTimeout).
	Setup        string
	SetupTimeout time.Duration
}

// DefaultSetupTimeout bounds a tree's setup command.
const DefaultSetupTimeout = 10 * time.Minute

// CheckedOutError is an agent's branch checked out in another folder than
// its tree's: git lets a branch be checked out in one place only.
type CheckedOutError struct {
	Branch, Path string
}

func (e *CheckedOutError) Error() string {
	return fmt.Sprintf("branch %s is already checked out at %s", e.Branch, e.Path)
}

// SetupError is a setup command that failed or ran out of time; the tree it
// was run in is gone again, so that the next start sets up afresh.
type SetupError struct {
	Command string
	Output  string // its last lines
	Err     error
}

func (e *SetupError) Error() string {
	msg := fmt.Sprintf("setup command %q failed: %v", e.Command, e.Err)
	if e.Output != "" {
		msg += "; it printed:\n" + e.Output
	}
	return msg
}

func (e *SetupError) Unwrap() error { return e.Err }

// Add gives the agent its tree: the one it has, or a new one on branch
// switchboard/<agent> (from the branch when it is left from an earlier
// tree, else from Base), with its submodules checked out, the files to copy
// copied, and the setup run.
func (r *Repo) Add(ctx context.Context, o AddOptions) (Tree, error) {
	dir := o.Dir
	if dir == "" {
		dir = r.DefaultDir()
		if err := r.ignoreDefaultDir(); err != nil {
			return Tree{}, err
		}
	}
	path := filepath.Join(dir, o.Agent)
	branch := Branch(o.Agent)
	at, err := r.checkedOut(ctx, branch)
	if err != nil {
		return Tree{}, err
	}
	if at != "" {
		if !samePath(at, path) {
			return Tree{}, &CheckedOutError{Branch: branch, Path: at}
		}
		t, err := r.Find(ctx, o.Agent)
		if err != nil {
			return Tree{}, err
		}
		return t, copyIgnored(r.Root, t.Path, o.Copy)
	}
	if err := emptyOrAbsent(path); err != nil {
		return Tree{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Tree{}, fmt.Errorf("make the folder of the worktrees: %w", err)
	}
	t := Tree{Agent: o.Agent, Path: path, Branch: branch, Created: true}
	kept := r.hasBranch(ctx, branch)
	if kept {
		// The branch of an earlier tree: its work goes on where it was.
		if _, err := r.git(ctx, "worktree", "add", path, branch); err != nil {
			return Tree{}, err
		}
	} else {
		base := o.Base
		if base == "" {
			base = "HEAD"
		}
		commit, err := r.git(ctx, "rev-parse", "--verify", "--quiet", base+"^{commit}")
		if err != nil {
			return Tree{}, fmt.Errorf("base %q is not a commit of %s: %w", base, r.Root, err)
		}
		commit = strings.TrimSpace(commit)
		if _, err := r.git(ctx, "worktree", "add", "-b", branch, path, commit); err != nil {
			return Tree{}, err
		}
		if _, err := r.git(ctx, "update-ref", baseRef(o.Agent), commit); err != nil {
			return Tree{}, err
		}
	}
	if t.Base, err = r.base(ctx, o.Agent); err != nil {
		return Tree{}, err
	}
	undo := func() {
		ctx := context.WithoutCancel(ctx)
		_, _ = r.git(ctx, "worktree", "remove", "--force", "--force", path)
		if !kept {
			_, _ = r.git(ctx, "branch", "-D", branch)
			_, _ = r.git(ctx, "update-ref", "-d", baseRef(o.Agent))
		}
	}
	if err := r.initSubmodules(ctx, path); err != nil {
		undo()
		return Tree{}, err
	}
	if err := copyIgnored(r.Root, path, o.Copy); err != nil {
		undo()
		return Tree{}, err
	}
	if err := setup(ctx, path, o.Setup, o.SetupTimeout); err != nil {
		undo()
		return Tree{}, err
	}
	return t, nil
}

// ignoreDefaultDir keeps the trees out of the main checkout's status.
func (r *Repo) ignoreDefaultDir() error {
	dir := filepath.Dir(r.DefaultDir())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("make the folder of the worktrees: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, ".gitignore"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("keep the worktrees out of git: %w", err)
	}
	_, err = f.WriteString("# switchboard's agent worktrees: each is a checkout of its own\n*\n")
	return errors.Join(err, f.Close())
}

// emptyOrAbsent refuses to put a tree where a folder with files is.
func emptyOrAbsent(path string) error {
	entries, err := os.ReadDir(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("worktree folder: %w", err)
	case len(entries) > 0:
		return fmt.Errorf("%s holds files but is not a worktree of this repository: move it away, or give the trees another folder", path)
	}
	return nil
}

func samePath(a, b string) bool {
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	if errA != nil || errB != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}

// initSubmodules checks out a new tree's submodules. Their git folders go
// where git keeps them for the tree, under its folder in the repository,
// not into the git folder switchboard gives git for the command.
func (r *Repo) initSubmodules(ctx context.Context, path string) error {
	if _, err := os.Stat(filepath.Join(path, ".gitmodules")); err != nil {
		return nil
	}
	c, err := r.linked(path)
	if err != nil {
		return err
	}
	defer c.close()
	modules, err := openBeneath(c.admin, "modules", true)
	if err != nil {
		return err
	}
	modules.Close()
	if err := os.Symlink(filepath.Join(c.admin, "modules"), filepath.Join(c.private, "modules")); err != nil {
		return err
	}
	_, err = c.git(ctx, "submodule", "update", "--init", "--recursive")
	return err
}
