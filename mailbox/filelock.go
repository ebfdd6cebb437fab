package mailbox

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// WithLock runs fn while holding an exclusive flock on the file at path,
// made (with its folder) when missing: the read-modify-write of a shared
// file by several processes. The lock goes with the process, so a writer
// killed halfway never leaves it held.
func WithLock(path string, fn func() error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("lock %s: %w", filepath.Base(path), err)
	}
	lock, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return fmt.Errorf("lock %s: %w", filepath.Base(path), err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock %s: %w", filepath.Base(path), err)
	}
	return fn()
}
