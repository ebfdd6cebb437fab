package worktree

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrRefused matches a *RefusedError.
var ErrRefused = errors.New("refused to run git in a worktree")

// RefusedError is a worktree switchboard runs no git in: its .git, or the
// repository's record of it, does not lead where git left them, so the
// configuration git would read there, and the programs it names, would be
// whatever the tree's owner chose.
type RefusedError struct {
	Path string // the tree
	Why  string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("refused to run git in %s: %s", e.Path, e.Why)
}

func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// checkout is git bound to one checkout of the repository.
//
// In the main checkout git runs as it would for the person: the git folder
// and the configuration are the repository's own. A linked worktree, an
// agent's tree, is another matter. Git would find its git folder through
// the tree's .git file, which the agent can point anywhere, at a
// configuration of its own; and, when extensions.worktreeConfig is set,
// read config.worktree in the repository's folder for the tree, which the
// agent writes too (its index and HEAD live there). Either may name
// programs git runs as the person (fsmonitor, filters, textconv) and
// include other files. So the tree's .git must lead to the repository's own
// record of it, and the record back to the tree; then git is handed a git
// folder of switchboard's own instead: the tree's HEAD copied, the
// repository's folder as its common folder, the tree's index. Git reads the
// system's, the person's and the repository's configuration, and nothing
// the tree or its folder holds.
type checkout struct {
	dir string
	env []string
	// For a linked worktree: admin is the repository's folder for it
	// (<common>/worktrees/<id>), head the HEAD it had when checked, and
	// private the git folder made for git to use.
	admin, id, head, private string
}

func (c *checkout) git(ctx context.Context, args ...string) (string, error) {
	return gitCmd(ctx, c.dir, c.env, args...)
}

// close removes the git folder made for a linked worktree.
func (c *checkout) close() {
	if c.private != "" {
		os.RemoveAll(c.private)
	}
}

// git runs git in the main checkout.
func (r *Repo) git(ctx context.Context, args ...string) (string, error) {
	return gitCmd(ctx, r.Root, nil, args...)
}

// tree checks an agent's tree and binds git to it; close it after use.
func (r *Repo) tree(t Tree) (*checkout, error) { return r.linked(t.Path) }

// checkoutAt binds git to the checkout at path: the main one, or a linked
// worktree once checked.
func (r *Repo) checkoutAt(path string) (*checkout, error) {
	if samePath(path, r.Root) {
		return &checkout{dir: r.Root}, nil
	}
	return r.linked(path)
}

// linked checks the linked worktree at path and binds git to it with a
// git folder of its own.
func (r *Repo) linked(path string) (*checkout, error) {
	admin, err := r.adminOf(path)
	if err != nil {
		return nil, err
	}
	head, err := readRecord(filepath.Join(admin, "HEAD"))
	if err != nil {
		return nil, &RefusedError{Path: path, Why: fmt.Sprintf("its HEAD in %s: %v", admin, err)}
	}
	if !validHead(head) {
		return nil, &RefusedError{Path: path, Why: fmt.Sprintf("its HEAD in %s names neither a branch nor a commit", admin)}
	}
	c, err := withPrivate(path, admin, head, map[string]string{"commondir": r.common})
	if err != nil {
		return nil, err
	}
	c.id = filepath.Base(admin)
	return c, nil
}

// withPrivate binds git to the checkout at dir with a git folder made for
// it: HEAD, and the files given (name to one line), and the index of the
// git folder admin.
func withPrivate(dir, admin, head string, files map[string]string) (*checkout, error) {
	private, err := os.MkdirTemp("", "switchboard-git-")
	if err != nil {
		return nil, fmt.Errorf("make a git folder for %s: %w", dir, err)
	}
	c := &checkout{
		dir: dir, admin: admin, head: head, private: private,
		env: []string{"GIT_DIR=" + private, "GIT_WORK_TREE=" + dir, "GIT_INDEX_FILE=" + filepath.Join(admin, "index")},
	}
	files["HEAD"] = head
	for name, line := range files {
		path := filepath.Join(private, name)
		err = errors.Join(err, os.MkdirAll(filepath.Dir(path), 0o700), os.WriteFile(path, []byte(line+"\n"), 0o600))
	}
	if err != nil {
		c.close()
		return nil, fmt.Errorf("make a git folder for %s: %w", dir, err)
	}
	return c, nil
}

// adminOf is the repository's folder for the linked worktree at path,
// once both ways agree: the tree's .git names <common>/worktrees/<id>, a
// folder there and no link, whose gitdir names the tree's .git. A link
// planted on either way is refused, not followed. What the files say is
// quoted in a refusal: the tree's owner wrote it.
func (r *Repo) adminOf(path string) (string, error) {
	refuse := func(format string, a ...any) (string, error) {
		return "", &RefusedError{Path: path, Why: fmt.Sprintf(format, a...)}
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return refuse("%v", err)
	}
	dotGit := filepath.Join(real, ".git")
	pointer, err := readRecord(dotGit)
	if err != nil {
		return refuse("its .git: %v", err)
	}
	target, ok := strings.CutPrefix(pointer, "gitdir: ")
	if !ok {
		return refuse("its .git does not name a git folder")
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(real, target)
	}
	target = filepath.Clean(target)
	worktrees := filepath.Join(r.common, "worktrees")
	if filepath.Dir(target) != worktrees {
		return refuse("its .git points to %q, not into %s, where the repository keeps its worktrees", target, worktrees)
	}
	for _, dir := range []string{worktrees, target} {
		info, err := os.Lstat(dir)
		switch {
		case err != nil:
			return refuse("%v", err)
		case info.Mode()&fs.ModeSymlink != 0:
			return refuse("%s is a link", dir)
		case !info.IsDir():
			return refuse("%s is not a folder", dir)
		}
	}
	back, err := readRecord(filepath.Join(target, "gitdir"))
	if err != nil {
		return refuse("the repository's record of it: %v", err)
	}
	if !filepath.IsAbs(back) {
		back = filepath.Join(target, back)
	}
	if filepath.Clean(back) != dotGit {
		return refuse("the repository's record %s is of %q, not of this tree", target, filepath.Clean(back))
	}
	return target, nil
}

// recordLimit bounds what is read of a file git keeps one line in: a
// tree's owner may have made it of any size.
const recordLimit = 4096

// readRecord reads a file git keeps one line in (.git, HEAD, gitdir),
// refusing a link or anything but a file.
func readRecord(path string) (string, error) {
	info, err := os.Lstat(path)
	switch {
	case err != nil:
		return "", err
	case info.Mode()&fs.ModeSymlink != 0:
		return "", fmt.Errorf("%s is a link", path)
	case !info.Mode().IsRegular():
		return "", fmt.Errorf("%s is not a file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, recordLimit))
	return strings.TrimSpace(string(data)), err
}

// validHead reports whether a HEAD file names a branch or a commit, and
// nothing else a git folder of switchboard's would be given.
func validHead(head string) bool {
	if ref, ok := strings.CutPrefix(head, "ref: "); ok {
		return strings.HasPrefix(ref, "refs/heads/") && !strings.ContainsAny(ref, " \t\n\r\x00")
	}
	return isCommitID(head)
}

// isCommitID reports whether s is a full object name, SHA-1 or SHA-256.
func isCommitID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}

// detached reports whether the tree's HEAD, when checked, was a commit
// rather than a branch.
func (c *checkout) detached() bool { return isCommitID(c.head) }
