package atomicfile

import "sync"

// syncers is how many syncs FinishAll and SyncDirs have under way at once.
// A disk takes syncs that come together in fewer flushes than the same
// syncs one after another; past a few at once it gains little more.
const syncers = 4

// FinishAll syncs (when durable) and closes many temporary files, as
// closing each with CloseAtomicallyPublish or CloseAtomicallyReplace would
// before giving it its name, but together: the writes of them all are
// started before any is waited for, and their syncs run side by side, so
// that syncing a batch of files costs near what syncing one does. What is
// left for each file is its name, which CloseAtomicallyPublish or
// CloseAtomicallyReplace then gives it without syncing it again. It returns
// the error of each file by its place in files; a file that failed is
// left to Cleanup.
func FinishAll(files []*File) []error {
	var unsynced int
	for _, f := range files {
		if f.opts.Durable && !f.finished {
			unsynced++
		}
	}
	// One file alone is synced at once: its writeback would not overlap
	// with another's.
	if unsynced > 1 {
		for _, f := range files {
			f.StartWriteback()
		}
	}
	errs := make([]error, len(files))
	each(len(files), func(i int) { errs[i] = files[i].finish() })
	return errs
}

// StartWriteback starts writing what was written to the file so far to
// the disk, when the file is durable, without waiting for it: the sync that
// comes later (FinishAll, or the close) finds it written, or on its way. It
// is meant for a file written whole: a second call does nothing, and what
// is written after the first waits for the sync. Where the kernel takes no
// such hint it does nothing.
func (f *File) StartWriteback() {
	if f.opts.Durable && !f.finished && !f.writing {
		startWriteback(f.File)
		f.writing = true
	}
}

// SyncDirs syncs many folders side by side, as SyncDir syncs one, telling
// hook of each, and returns the error of each by its place in dirs.
func SyncDirs(dirs []string, hook SyncHook) []error {
	errs := make([]error, len(dirs))
	each(len(dirs), func(i int) { errs[i] = hook.SyncDir(dirs[i]) })
	return errs
}

// each calls do with 0 to n-1, up to syncers at once, and returns when
// every call has.
func each(n int, do func(i int)) {
	if n == 1 {
		do(0)
		return
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(n, syncers) {
		wg.Go(func() {
			for i := range next {
				do(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
