package hublink

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"

	"switchboard/hub"
	"switchboard/internal/watch"
	"switchboard/workspace"
)

// stampOf is a fingerprint of the files and folders at paths, by name,
// size and time of change, without reading them: what the link reads again
// only when it changed. A folder counts its entries too.
func stampOf(paths ...string) string {
	h := sha256.New()
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			fmt.Fprintf(h, "%s missing\n", p)
			continue
		}
		fmt.Fprintf(h, "%s %d %d\n", p, fi.Size(), fi.ModTime().UnixNano())
		if !fi.IsDir() {
			continue
		}
		entries, _ := os.ReadDir(p)
		for _, e := range entries {
			if info, err := e.Info(); err == nil {
				fmt.Fprintf(h, " %s %d %d\n", e.Name(), info.Size(), info.ModTime().UnixNano())
			}
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// filesStamp fingerprints what the link reads of its workspace besides
// mail: the rules file, the profiles and the registry of the agents spawned
// here.
func filesStamp(ws *workspace.Workspace) string {
	return stampOf(ws.RulesPath(), ws.Profiles(), ws.SpawnedFile())
}

// watchFiles follows the folders that hold what filesStamp fingerprints,
// so that the link makes its stamp again only after one of them changed: a
// team at rest looks at none of its files. It returns once the folders are
// watched; what it returns is closed once it stopped following them, after
// ctx ended.
func (l *Link) watchFiles(ctx context.Context) <-chan struct{} {
	folders := watch.NewFolders(hub.Heartbeat, l.ws.Root, l.ws.Profiles(), filepath.Dir(l.ws.SpawnedFile()))
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		defer folders.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case <-folders.C:
				l.filesChanged.Add(1)
			}
		}
	}()
	return stopped
}

// stamp is filesStamp, made again only when the folders changed since it
// was last made, or when now is set: a change fsnotify has not yet told of
// (a helper spawned a moment ago) is then seen too.
func (l *Link) stamp(now bool) string {
	changes := l.filesChanged.Load()
	l.mu.Lock()
	if !now && l.stamped != "" && l.stampedAt == changes {
		defer l.mu.Unlock()
		return l.stamped
	}
	l.mu.Unlock()
	stamp := filesStamp(l.ws)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stamped, l.stampedAt = stamp, changes
	return stamp
}
