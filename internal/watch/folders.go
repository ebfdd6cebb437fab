package watch

import (
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Folders wakes its reader when one of its folders changes, and every tick
// at the latest.
type Folders struct {
	// C receives a value after a change (changes merge while nobody reads)
	// or a tick.
	C <-chan struct{}

	fs   *fsnotify.Watcher
	tick *time.Ticker
	done chan struct{}
}

// NewFolders watches dirs, and ticks every tick. A folder that cannot be
// watched is looked at by the tick alone.
func NewFolders(tick time.Duration, dirs ...string) *Folders {
	c := make(chan struct{}, 1)
	f := &Folders{C: c, tick: time.NewTicker(tick), done: make(chan struct{})}
	if w, err := fsnotify.NewWatcher(); err == nil {
		f.fs = w
		for _, dir := range dirs {
			_ = w.Add(dir) // the tick covers a folder that cannot be watched
		}
	}
	go f.forward(c)
	return f
}

func (f *Folders) forward(c chan<- struct{}) {
	var events <-chan fsnotify.Event
	var errs <-chan error
	if f.fs != nil {
		events, errs = f.fs.Events, f.fs.Errors
	}
	for {
		select {
		case <-f.done:
			return
		case _, ok := <-events:
			if !ok {
				events = nil
				continue
			}
		case _, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
		case <-f.tick.C:
		}
		select {
		case c <- struct{}{}:
		default:
		}
	}
}

// Add watches more folders; one already watched, or one that cannot be
// watched, is left to what watches it, or to the tick.
func (f *Folders) Add(dirs ...string) {
	if f.fs == nil {
		return
	}
	watched := f.fs.WatchList()
	for _, dir := range dirs {
		if !slices.Contains(watched, dir) {
			_ = f.fs.Add(dir)
		}
	}
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
