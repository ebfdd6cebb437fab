package mailbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrExists is returned by Publish when the target name is already taken.
var ErrExists = errors.New("file already exists")

// Publish writes data to dir/name atomically and never replaces an existing
// file: it writes a temporary file in tmpDir (same filesystem), syncs it when
// durable, links it into place (failing with ErrExists if the name is taken),
// and syncs dir when durable.
func Publish(tmpDir, dir, name string, data []byte, durable bool) error {
	if err := Link(tmpDir, dir, name, data, durable); err != nil {
		return err
	}
	if durable {
		return SyncDir(dir)
	}
	return nil
}

// Link is Publish without the sync of dir: the data is synced (when
// syncData) before the name appears, and the caller syncs dir, once for a
// batch of files.
func Link(tmpDir, dir, name string, data []byte, syncData bool) error {
	tmp, err := writeTemp(tmpDir, data, syncData)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	target := filepath.Join(dir, name)
	if err := os.Link(tmp, target); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("publish %s: %w", target, ErrExists)
		}
		return fmt.Errorf("publish %s: %w", target, err)
	}
	return nil
}

// Replace writes data to dir/name atomically, replacing any file there.
func Replace(tmpDir, dir, name string, data []byte, durable bool) error {
	tmp, err := writeTemp(tmpDir, data, durable)
	if err != nil {
		return err
	}
	target := filepath.Join(dir, name)
	if err := os.Rename(tmp, target); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("replace %s: %w", target, err)
	}
	if durable {
		return SyncDir(dir)
	}
	return nil
}

// Move renames a file between folders of one mailbox tree and, when durable,
// syncs both folders so the move survives a power cut.
func Move(from, to string, durable bool) error {
	if err := os.Rename(from, to); err != nil {
		return fmt.Errorf("move %s: %w", filepath.Base(from), err)
	}
	if !durable {
		return nil
	}
	if err := SyncDir(filepath.Dir(to)); err != nil {
		return err
	}
	if filepath.Dir(from) != filepath.Dir(to) {
		return SyncDir(filepath.Dir(from))
	}
	return nil
}

func writeTemp(tmpDir string, data []byte, durable bool) (string, error) {
	f, err := os.CreateTemp(tmpDir, ".tmp-*")
	if err != nil {
		return "", fmt.Errorf("create temporary file: %w", err)
	}
	name := f.Name()
	fail := func(err error) (string, error) {
		f.Close()
		os.Remove(name)
		return "", err
	}
	if _, err := f.Write(data); err != nil {
		return fail(fmt.Errorf("write %s: %w", name, err))
	}
	if durable {
		if err := f.Sync(); err != nil {
			return fail(fmt.Errorf("sync %s: %w", name, err))
		}
	}
	if err := f.Close(); err != nil {
		os.Remove(name)
		return "", fmt.Errorf("close %s: %w", name, err)
	}
	return name, nil
}

// SyncDir fsyncs a directory so that names created or removed in it are durable.
func SyncDir(dir string) error {
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
