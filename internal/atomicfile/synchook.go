package atomicfile

import (
	"fmt"
	"os"
)

// A SyncHook hears of each sync made through it, with the path of the file
// or folder about to be synced; an error it returns stands for the sync's
// own, and the sync is not made. Tests count syncs with one, and fail them
// on purpose. A nil SyncHook syncs plainly.
type SyncHook func(path string) error

// SyncFile syncs f, after telling the hook.
func (h SyncHook) SyncFile(f *os.File) error {
	if h != nil {
		if err := h(f.Name()); err != nil {
			return fmt.Errorf("sync %s: %w", f.Name(), err)
		}
	}
	return f.Sync()
}

// SyncDir syncs a folder, after telling the hook, so that names made or
// removed in it are durable.
func (h SyncHook) SyncDir(dir string) error {
	if h != nil {
		if err := h(dir); err != nil {
			return fmt.Errorf("sync folder %s: %w", dir, err)
		}
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync folder: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync folder %s: %w", dir, err)
	}
	return nil
}
