package watch

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"sync"
	"time"
)

// Stamp identifies a version of a file or folder: its modification time and
// size and, where the system tells them, its inode and change time (which
// only the kernel sets). A file changed in any way stamps differently,
// with the rare exception of a change within the clock's resolution on a
// system without change times.
func Stamp(info fs.FileInfo) string {
	return strconv.FormatInt(info.ModTime().UnixNano(), 10) + " " + strconv.FormatInt(info.Size(), 10) + inodeAndChange(info)
}

// FileStamp is the Stamp of the file at path, "" when it cannot be read.
func FileStamp(path string) string {
	info, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return Stamp(info)
}

// racyWindow is how long after a change a stamp may not tell the next one:
// a change within the filesystem's timestamp granularity can leave a
// folder's times as they were (git's "racily clean" entries, the same
// problem). Filesystems with nanosecond times tick every few milliseconds
// at most; one whose times have no fraction may tick every second or two.
const (
	racyWindow       = 100 * time.Millisecond
	coarseRacyWindow = 2 * time.Second
)

// Racy reports whether info changed too recently for its Stamp to tell the
// next change: what was read under it is used once, not remembered.
func Racy(info fs.FileInfo) bool {
	window := racyWindow
	if info.ModTime().Nanosecond() == 0 {
		window = coarseRacyWindow
	}
	return time.Since(info.ModTime()) <= window
}

// missing is the stamp of a file that is not there.
const missing = "missing"

// Remembered keeps a value read from each of several files, under the
// file's Stamp: a file unchanged since is not read again. It is safe for
// concurrent use.
type Remembered[T any] struct {
	mu   sync.Mutex
	read map[string]remembered[T]
}

type remembered[T any] struct {
	stamp string
	value T
}

// Get returns the value read from the file at path: remembered when the
// file is as it was, else read again with read (and remembered unless the
// file changed too recently, see Racy). A missing file is remembered
// missing, until it is there; one that cannot be stat'ed otherwise is
// read, and forgotten.
func (r *Remembered[T]) Get(path string, read func() (T, error)) (T, error) {
	info, err := os.Stat(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		r.forget(path)
		return read()
	}
	stamp := missing
	if err == nil {
		stamp = Stamp(info)
	}
	r.mu.Lock()
	got, ok := r.read[path]
	r.mu.Unlock()
	if ok && got.stamp == stamp {
		return got.value, nil
	}
	value, err := read()
	if err != nil || (info != nil && Racy(info)) {
		r.forget(path)
		return value, err
	}
	r.mu.Lock()
	if r.read == nil {
		r.read = make(map[string]remembered[T])
	}
	r.read[path] = remembered[T]{stamp: stamp, value: value}
	r.mu.Unlock()
	return value, nil
}

// Forget drops what was read from every file not in keep.
func (r *Remembered[T]) Forget(keep func(path string) bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for path := range r.read {
		if !keep(path) {
			delete(r.read, path)
		}
	}
}

func (r *Remembered[T]) forget(path string) {
	r.mu.Lock()
	delete(r.read, path)
	r.mu.Unlock()
}
