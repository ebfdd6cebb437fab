package pidlock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"switchboard/internal/watch"
)

// HeldError is returned by Acquire when another process held the lock for
// all of the wait; Pid is the pid it wrote, or 0 when it wrote none yet.
type HeldError struct{ Pid int }

func (e *HeldError) Error() string { return fmt.Sprintf("held by pid %d", e.Pid) }

// Wait says how long Acquire waits for a lock another process holds; the
// zero Wait tries once.
type Wait struct {
	// Poll is how often it tries again, Limit how long it tries in all.
	Poll, Limit time.Duration
	// Waiting, when set, is called once with the holder's pid when the
	// first try finds the lock taken, before waiting for it.
	Waiting func(pid int)
}

// Lock is held by this process until Release.
type Lock struct{ file *os.File }

// pidWidth is the length of a lock file: a pid padded with spaces, and a
// newline.
const pidWidth = 16

// Acquire takes the lock on the file at path, made when missing (its folder
// must exist), and writes this process's pid into it. When another process
// holds it, it waits as wait says; past that, the error is a *HeldError, or
// ctx's error when ctx ended first.
func Acquire(ctx context.Context, path string, wait Wait) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	try := func() bool {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		return !errors.Is(err, syscall.EWOULDBLOCK)
	}
	if !try() {
		if wait.Waiting != nil {
			wait.Waiting(readPid(f))
		}
		poll := max(wait.Poll, time.Millisecond)
		if wait.Limit <= 0 || !watch.Until(ctx, poll, wait.Limit, try) {
			pid := readPid(f)
			f.Close()
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, &HeldError{Pid: pid}
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("flock %s: %w", path, err)
	}
	// The pid is written over the last one, padded to the same length, so
	// that a full disk, which has no block to give a truncated file, still
	// lets the lock be taken.
	pid := fmt.Sprintf("%-*d\n", pidWidth-1, os.Getpid())
	if _, err := f.WriteAt([]byte(pid), 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("write the pid into %s: %w", path, err)
	}
	if err := f.Truncate(pidWidth); err != nil {
		f.Close()
		return nil, fmt.Errorf("write the pid into %s: %w", path, err)
	}
	return &Lock{file: f}, nil
}

// Release lets go of the lock; it may be called again, and on nil. The pid
// stays in the file, whose block the next holder reuses: only the flock
// tells that one holds it.
func (l *Lock) Release() {
	if l == nil || l.file == nil {
		return
	}
	l.file.Close() // closing drops the flock
	l.file = nil
}

// Holder reports whether a process holds the lock on the file at path now,
// and the pid it wrote. A missing file, or a link, is held by no one.
func Holder(path string) (pid int, held bool) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return readPid(f), true
		}
		return 0, false
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return 0, false
}

// readPid is the pid the lock's holder wrote, or 0.
func readPid(f *os.File) int {
	buf := make([]byte, 32)
	n, _ := f.ReadAt(buf, 0)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	return pid
}
