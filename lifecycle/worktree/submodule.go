package worktree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// submoduleChanges are the changes not committed in the files of the
// tree's checked-out submodules, each line naming its submodule, and a
// line for each one that could not be looked into.
//
// Git would look by running git in each, with the git folder its .git
// names: one kept under the repository's folder for the tree
// (modules/<name>), which the agent writes, configuration and all. So each
// is looked at as the tree is: its .git must lead into that folder, through
// no link, and git is given a git folder of switchboard's own, with the
// submodule's HEAD, objects and index, and no configuration of its own.
func (c *checkout) submoduleChanges(ctx context.Context) []string {
	return c.submodulesUnder(ctx, filepath.Join(c.admin, "modules"), "")
}

func (c *checkout) submodulesUnder(ctx context.Context, modules, prefix string) []string {
	out, err := c.git(ctx, "ls-files", "--stage", "-z")
	if err != nil {
		return []string{fmt.Sprintf("?? %s (its submodules could not be listed: %v)", c.dir, err)}
	}
	var changes []string
	for _, entry := range strings.Split(out, "\x00") {
		meta, path, ok := strings.Cut(entry, "\t")
		if !ok || !strings.HasPrefix(meta, "160000 ") {
			continue
		}
		name := prefix + path
		if _, err := os.Lstat(filepath.Join(c.dir, path, ".git")); errors.Is(err, fs.ErrNotExist) {
			continue // not checked out: it holds nothing
		}
		sub, err := openSubmodule(ctx, c.dir, path, modules)
		if err == nil {
			var files []string
			if files, err = sub.status(ctx, true); err == nil {
				for _, f := range files {
					changes = append(changes, fmt.Sprintf("%s (in submodule %s)", f, name))
				}
				changes = append(changes, sub.submodulesUnder(ctx, modules, name+"/")...)
			}
			sub.close()
		}
		if err != nil {
			changes = append(changes, fmt.Sprintf("?? %s/ (a submodule not looked into: %v)", name, err))
		}
	}
	return changes
}

// openSubmodule binds git to the submodule at path of the checkout at
// top, once its .git leads into modules through no link.
func openSubmodule(ctx context.Context, top, path, modules string) (*checkout, error) {
	d, err := openBeneath(top, path, false)
	if err != nil {
		return nil, err
	}
	d.Close()
	dir := filepath.Join(top, path)
	pointer, err := readRecord(filepath.Join(dir, ".git"))
	if err != nil {
		return nil, err
	}
	gitDir, ok := strings.CutPrefix(pointer, "gitdir: ")
	if !ok {
		return nil, fmt.Errorf("its .git does not name a git folder")
	}
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(dir, gitDir)
	}
	gitDir = filepath.Clean(gitDir)
	rel, err := filepath.Rel(filepath.Dir(modules), gitDir)
	if err != nil || !strings.HasPrefix(rel, filepath.Base(modules)+string(filepath.Separator)) {
		return nil, fmt.Errorf("its .git points to %q, not into %s", gitDir, modules)
	}
	if d, err = openBeneath(filepath.Dir(modules), rel, false); err != nil {
		return nil, err
	}
	d.Close()
	// Only a ref is read in the submodule's own git folder: no command
	// that runs a program its configuration names.
	head, err := gitCmd(ctx, gitDir, []string{"GIT_DIR=" + gitDir}, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return nil, err
	}
	head = strings.TrimSpace(head)
	if !isCommitID(head) {
		return nil, fmt.Errorf("its HEAD is %q", head)
	}
	format := "[core]\n\trepositoryformatversion = 0"
	if len(head) == 64 {
		format = "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectformat = sha256"
	}
	return withPrivate(dir, gitDir, head, map[string]string{
		"config":                  format,
		"objects/info/alternates": filepath.Join(gitDir, "objects"),
		"refs/heads/.keep":        "",
	})
}
