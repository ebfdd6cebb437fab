package worktree

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrLink is a link on the way to a file to copy, or to where it goes: a
// link the agent made in its tree would send the main checkout's secrets
// wherever it points, and one in the main checkout would copy in a file
// from outside it.
var ErrLink = errors.New("is a link, and no file is copied through one")

// copyIgnored copies the files the patterns match in the main checkout to
// the same place in the tree, each only when the tree has no such file:
// what the agent changed is never overwritten.
func copyIgnored(root, tree string, patterns []string) error {
	for _, pattern := range patterns {
		if filepath.IsAbs(pattern) || strings.HasPrefix(filepath.Clean(pattern), "..") {
			return fmt.Errorf("file to copy %q must be a path inside the repository, relative to its top", pattern)
		}
		matches, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			return fmt.Errorf("file to copy %q: %w", pattern, err)
		}
		for _, src := range matches {
			rel, err := filepath.Rel(root, src)
			if err != nil {
				return err
			}
			if err := copyNew(root, tree, rel); err != nil {
				return fmt.Errorf("copy %s into the worktree: %w", rel, err)
			}
		}
	}
	return nil
}

// copyNew copies the regular file rel of root to rel of tree unless the
// tree has it. Neither way follows a link: each folder is opened from the
// one before without following one, so a link swapped in between a check
// and the write cannot send the file elsewhere.
func copyNew(root, tree, rel string) error {
	from, err := openBeneath(root, filepath.Dir(rel), false)
	if err != nil {
		return err
	}
	defer from.Close()
	name := filepath.Base(rel)
	fd, err := unix.Openat(int(from.Fd()), name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return linkOr(from, name, filepath.Join(root, rel), err)
	}
	in := os.NewFile(uintptr(fd), filepath.Join(root, rel))
	defer in.Close()
	info, err := in.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return err // a folder or device is not copied
	}
	to, err := openBeneath(tree, filepath.Dir(rel), true)
	if err != nil {
		return err
	}
	defer to.Close()
	dst := filepath.Join(tree, rel)
	fd, err = unix.Openat(int(to.Fd()), name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(info.Mode().Perm()))
	if errors.Is(err, unix.EEXIST) {
		if isLink(to, name) {
			return fmt.Errorf("%s %w", dst, ErrLink)
		}
		return nil // the tree's own file
	}
	if err != nil {
		return &os.PathError{Op: "create", Path: dst, Err: err}
	}
	out := os.NewFile(uintptr(fd), dst)
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		unix.Unlinkat(int(to.Fd()), name, 0)
		return err
	}
	return out.Close()
}

// openBeneath opens the folder rel under root one folder at a time, never
// following a link, and with create makes those missing; a link on the
// way is ErrLink.
func openBeneath(root, rel string, create bool) (*os.File, error) {
	dir, err := os.Open(root)
	if err != nil {
		return nil, err
	}
	at := root
	for _, name := range strings.Split(filepath.Clean(rel), string(filepath.Separator)) {
		if name == "." || name == "" {
			continue
		}
		at = filepath.Join(at, name)
		const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
		fd, err := unix.Openat(int(dir.Fd()), name, flags, 0)
		if errors.Is(err, unix.ENOENT) && create {
			if err = unix.Mkdirat(int(dir.Fd()), name, 0o755); err == nil || errors.Is(err, unix.EEXIST) {
				fd, err = unix.Openat(int(dir.Fd()), name, flags, 0)
			}
		}
		if err != nil {
			err = linkOr(dir, name, at, err)
			dir.Close()
			return nil, err
		}
		dir.Close()
		dir = os.NewFile(uintptr(fd), at)
	}
	return dir, nil
}

// linkOr is ErrLink when name in dir is a link, else err about path.
func linkOr(dir *os.File, name, path string, err error) error {
	if isLink(dir, name) {
		return fmt.Errorf("%s %w", path, ErrLink)
	}
	return &os.PathError{Op: "open", Path: path, Err: err}
}

func isLink(dir *os.File, name string) bool {
	var st unix.Stat_t
	err := unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW)
	return err == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
}
