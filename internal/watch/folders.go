package watch

import (
	"context"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Folders wakes its reader when one of its folders changes. It runs no
// timer while inotify watches every folder it was given: a team at rest
// wakes none of the processes that follow it. A folder that cannot be
// watched (no inotify here, a folder not made yet, one removed) is looked
// at every tick instead, and watched again as soon as it can be.
type Folders struct {
	// C receives a value after a change (changes merge while nobody reads)
	// or a tick.
	C <-chan struct{}

	c     chan struct{}
	every time.Duration
	fs    *fsnotify.Watcher
	done  chan struct{}

	mu        sync.Mutex
	wanted    map[string]bool // every folder asked for
	unwatched map[string]bool // those inotify does not watch now
	tick      *time.Ticker    // stopped while unwatched is empty
	armed     bool            // tick runs
}

// NewFolders watches dirs; a folder that cannot be watched is looked at
// every tick until it can be.
func NewFolders(tick time.Duration, dirs ...string) *Folders {
	c := make(chan struct{}, 1)
	f := &Folders{C: c, c: c, every: tick, done: make(chan struct{}),
		wanted: make(map[string]bool), unwatched: make(map[string]bool), tick: time.NewTicker(tick)}
	f.tick.Stop()
	if w, err := fsnotify.NewWatcher(); err == nil {
		f.fs = w
	}
	f.Add(dirs...)
	go f.forward()
	return f
}

func (f *Folders) forward() {
	var events <-chan fsnotify.Event
	var errs <-chan error
	if f.fs != nil {
		events, errs = f.fs.Events, f.fs.Errors
	}
	for {
		select {
		case <-f.done:
			return
		case e, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if e.Has(fsnotify.Remove) || e.Has(fsnotify.Rename) {
				f.lost(e.Name)
			}
		case _, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
		case <-f.tick.C:
			f.retry()
		}
		select {
		case f.c <- struct{}{}:
		default:
		}
	}
}

// Add watches more folders; one already watched is left as it is, and one
// that cannot be watched is looked at every tick until it can be.
func (f *Folders) Add(dirs ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, dir := range dirs {
		if f.wanted[dir] && !f.unwatched[dir] {
			continue
		}
		f.wanted[dir] = true
		if f.fs != nil && f.fs.Add(dir) == nil {
			delete(f.unwatched, dir)
			continue
		}
		f.unwatched[dir] = true
	}
	f.tickWhileUnwatched()
}

// lost takes note that a folder asked for went away (removed or renamed):
// inotify no longer watches it, and the tick looks for it until it is back.
func (f *Folders) lost(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.wanted[name] {
		return // a file or folder inside one
	}
	// A renamed folder may still be watched under its old inode; one
	// removed is not watched any more, and its Remove fails, as it may.
	_ = f.fs.Remove(name)
	f.unwatched[name] = true
	f.tickWhileUnwatched()
}

// retry watches again the folders that can be now.
func (f *Folders) retry() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for dir := range f.unwatched {
		if f.fs != nil && f.fs.Add(dir) == nil {
			delete(f.unwatched, dir)
		}
	}
	f.tickWhileUnwatched()
}

// tickWhileUnwatched starts the tick when a folder is not watched, and
// stops it when every one is. f.mu is held.
func (f *Folders) tickWhileUnwatched() {
	switch need := len(f.unwatched) > 0; {
	case need && !f.armed:
		f.tick.Reset(f.every)
	case !need && f.armed:
		f.tick.Stop()
	}
	f.armed = len(f.unwatched) > 0
}

// ticking reports whether the timer runs: some folder asked for is not
// watched, and is looked at every tick.
func (f *Folders) ticking() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.armed
}

// Close stops watching. A wake-up may still be waiting on C; nothing new
// comes after the watch has seen Close. Close once.
func (f *Folders) Close() {
	close(f.done)
	f.tick.Stop()
	if f.fs != nil {
		f.fs.Close()
	}
}

// Await looks at cond at once, then after each change of dirs (a folder
// that cannot be watched: every tick), until it holds or ctx ends, and
// reports whether it held. The folders are watched before the first look,
// so that no change after it is missed.
func Await(ctx context.Context, tick time.Duration, dirs []string, cond func() bool) bool {
	f := NewFolders(tick, dirs...)
	defer f.Close()
	for {
		if cond() {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-f.C:
		}
	}
}
