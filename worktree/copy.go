package worktree

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

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
			if err := copyNew(src, filepath.Join(tree, rel)); err != nil {
				return fmt.Errorf("copy %s into the worktree: %w", rel, err)
			}
		}
	}
	return nil
}

// copyNew copies one regular file to dst unless dst exists.
func copyNew(src, dst string) error {
	info, err := os.Stat(src)
	if err != nil || !info.Mode().IsRegular() {
		return err // a folder or device is not copied
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm())
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		out.Close()
		os.Remove(dst)
		return err
	}
	defer in.Close()
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(dst)
		return err
	}
	return out.Close()
}
