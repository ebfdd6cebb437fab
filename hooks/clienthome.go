package hooks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// linkEntries links every entry of the folder from whose name keep accepts
// into the folder to, so that a client started with to as its home finds
// the user's login, history and settings where it looks. A link made before
// is made again; a real file there, which the client wrote itself, stays.
// A missing from is an empty one: the user has not run the client yet.
func linkEntries(from, to string, keep func(name string) bool) error {
	entries, err := os.ReadDir(from)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", from, err)
	}
	for _, e := range entries {
		if !keep(e.Name()) {
			continue
		}
		target, link := filepath.Join(from, e.Name()), filepath.Join(to, e.Name())
		if info, err := os.Lstat(link); err == nil {
			if info.Mode()&fs.ModeSymlink == 0 {
				continue
			}
			if err := os.Remove(link); err != nil {
				return fmt.Errorf("link %s: %w", target, err)
			}
		}
		if err := os.Symlink(target, link); err != nil {
			return fmt.Errorf("link %s: %w", target, err)
		}
	}
	return nil
}
