package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrExists is returned when Publish finds the name taken.
var ErrExists = errors.New("file already exists")

// Options say where the temporary file goes and what is synced.
type Options struct {
	// TmpDir holds the temporary file; "" is the target's own folder. It
	// must be on the target's filesystem. Readers skip names starting with
	// a dot, which temporary files have.
	TmpDir string
	// Durable syncs the data before the name appears, and the folder after.
	Durable bool
	// NoDirSync leaves the folder's sync to the caller, who syncs it once
	// for a batch of files.
	NoDirSync bool
	// Hook hears of every sync made for the file (see SyncHook).
	Hook SyncHook
}

// File is a temporary file that becomes path when closed with
// CloseAtomicallyReplace or CloseAtomicallyPublish. Cleanup, safe to defer,
// removes it when neither happened.
type File struct {
	*os.File
	path     string
	opts     Options
	done     bool
	finished bool // synced when durable, and closed: what is left is its name
	writing  bool // its writeback was started (StartWriteback)
}

// Create starts a file that will be path.
func Create(path string, opts Options) (*File, error) {
	dir := opts.TmpDir
	if dir == "" {
		dir = filepath.Dir(path)
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("create temporary file: %w", err)
	}
	return &File{File: f, path: path, opts: opts}, nil
}

// Cleanup removes the temporary file unless it became path.
func (f *File) Cleanup() error {
	if f.done {
		return nil
	}
	f.done = true
	f.File.Close()
	return os.Remove(f.Name())
}

// finish syncs (when durable) and closes the temporary file, unless
// FinishAll did.
func (f *File) finish() error {
	if f.finished {
		return nil
	}
	// The errors of os name the operation and the file already.
	if f.opts.Durable {
		if err := f.opts.Hook.SyncFile(f.File); err != nil {
			return err
		}
	}
	f.finished = true
	return f.File.Close()
}

// CloseAtomicallyReplace gives the file its name, replacing what was there.
func (f *File) CloseAtomicallyReplace() error {
	defer f.Cleanup()
	if err := f.finish(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), f.path); err != nil {
		return fmt.Errorf("replace %s: %w", f.path, err)
	}
	f.done = true
	return f.syncDir()
}

// CloseAtomicallyPublish gives the file its name unless the name is taken
// (ErrExists): a file already there is never replaced.
func (f *File) CloseAtomicallyPublish() error {
	defer f.Cleanup()
	if err := f.finish(); err != nil {
		return err
	}
	if err := os.Link(f.Name(), f.path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("publish %s: %w", f.path, ErrExists)
		}
		return fmt.Errorf("publish %s: %w", f.path, err)
	}
	return f.syncDir()
}

func (f *File) syncDir() error {
	if !f.opts.Durable || f.opts.NoDirSync {
		return nil
	}
	return f.opts.Hook.SyncDir(filepath.Dir(f.path))
}

// WriteFile writes data to path, replacing what was there.
func WriteFile(path string, data []byte, opts Options) error {
	return write(path, data, opts, (*File).CloseAtomicallyReplace)
}

// Publish writes data to path unless the name is taken (ErrExists).
func Publish(path string, data []byte, opts Options) error {
	return write(path, data, opts, (*File).CloseAtomicallyPublish)
}

func write(path string, data []byte, opts Options, name func(*File) error) error {
	f, err := Create(path, opts)
	if err != nil {
		return err
	}
	defer f.Cleanup()
	if _, err := f.Write(data); err != nil {
		return err // it names the operation and the file
	}
	return name(f)
}

// Move renames a file, within one filesystem, and when durable syncs both
// folders so that the move survives a power cut.
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

// SyncDir syncs a folder so that names made or removed in it are durable.
func SyncDir(dir string) error {
	return SyncHook(nil).SyncDir(dir)
}
