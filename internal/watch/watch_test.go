package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestFoldersWakesOnAChange(t *testing.T) {
	dir := t.TempDir()
	f := NewFolders(time.Hour, dir)
	defer f.Close()
	if err := os.WriteFile(filepath.Join(dir, "new"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case <-f.C:
	case <-time.After(5 * time.Second):
		t.Fatal("no wake-up within 5s of a file made in the folder")
	}
}

// TestFoldersRunNoTimerWhileEveryFolderIsWatched: a process that follows
// folders inotify watches wakes for their changes alone, however short
// its tick: a team at rest costs it nothing.
func TestFoldersRunNoTimerWhileEveryFolderIsWatched(t *testing.T) {
	f := NewFolders(time.Millisecond, t.TempDir(), t.TempDir())
	defer f.Close()
	if f.ticking() {
		t.Error("a timer runs, though every folder is watched")
	}
}

// TestFoldersTicksWhereItCannotWatch: a folder not made yet is looked at
// every tick, and once it is made it is watched, and the timer stops.
func TestFoldersTicksWhereItCannotWatch(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	f := NewFolders(10*time.Millisecond, dir)
	defer f.Close()
	if !f.ticking() {
		t.Fatal("no timer for a folder that cannot be watched")
	}
	select {
	case <-f.C:
	case <-time.After(5 * time.Second):
		t.Fatal("no tick for a folder that cannot be watched")
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if !Until(context.Background(), 5*time.Millisecond, 5*time.Second, func() bool { return !f.ticking() }) {
		t.Fatal("the folder made is not watched: the timer still runs")
	}
	wakesOnAFileIn(t, f, dir)
}

// TestAFolderRemovedIsWatchedAgainWhenItIsBack: inotify drops the watch of
// a folder removed; the tick looks for it until it is made again, then
// its changes wake the reader again and the timer stops.
func TestAFolderRemovedIsWatchedAgainWhenItIsBack(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "inbox")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	f := NewFolders(10*time.Millisecond, dir)
	defer f.Close()
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if !Until(context.Background(), 5*time.Millisecond, 5*time.Second, f.ticking) {
		t.Fatal("the folder removed is not looked for: no timer runs")
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if !Until(context.Background(), 5*time.Millisecond, 5*time.Second, func() bool { return !f.ticking() }) {
		t.Fatal("the folder made again is not watched: the timer still runs")
	}
	wakesOnAFileIn(t, f, dir)
}

// wakesOnAFileIn makes a file in dir, once every wake-up waiting was
// taken, and fails unless f wakes for it.
func wakesOnAFileIn(t *testing.T, f *Folders, dir string) {
	t.Helper()
	select {
	case <-f.C:
	default:
	}
	if err := os.WriteFile(filepath.Join(dir, "new"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case <-f.C:
	case <-time.After(5 * time.Second):
		t.Fatal("no wake-up within 5s of a file made in the folder")
	}
}

func TestAwaitLooksAgainAfterEachChange(t *testing.T) {
	dir := t.TempDir()
	looks := 0
	held := Await(context.Background(), time.Hour, []string{dir}, func() bool {
		looks++
		if looks < 3 {
			// The change is made after the folder is watched: it wakes the next look.
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(looks)), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			return false
		}
		return true
	})
	if !held || looks != 3 {
		t.Errorf("Await held %v after %d looks; want it held at the third, each after a change", held, looks)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if Await(ctx, time.Hour, []string{dir}, func() bool { return false }) {
		t.Error("Await held after ctx ended, for a condition that never holds")
	}
}

func TestUntilGivesUpAtTheLimit(t *testing.T) {
	n := 0
	if Until(context.Background(), time.Millisecond, 50*time.Millisecond, func() bool { n++; return false }) {
		t.Error("a condition that never holds was reported held")
	}
	if n < 2 {
		t.Errorf("looked %d times; want every interval", n)
	}
	if !Until(context.Background(), time.Hour, time.Hour, func() bool { return true }) {
		t.Error("a condition that holds at once was not seen")
	}
}

func TestEveryLooksAfterAnIntervalUntilCondHolds(t *testing.T) {
	looks := 0
	if !Every(context.Background(), time.Millisecond, func() bool { looks++; return looks == 3 }) || looks != 3 {
		t.Errorf("Every looked %d times; want until the third look held", looks)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if Every(ctx, time.Hour, func() bool { t.Error("looked before the first interval"); return true }) {
		t.Error("Every held after ctx ended")
	}
}

func TestRememberedReadsAFileAgainOnlyWhenItChanged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	write := func(text string, age time.Duration) {
		if err := os.WriteFile(path+".tmp", []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(-age)
		if err := os.Chtimes(path+".tmp", at, at); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(path+".tmp", path); err != nil {
			t.Fatal(err)
		}
	}
	var r Remembered[string]
	reads := 0
	get := func() string {
		got, err := r.Get(path, func() (string, error) {
			reads++
			data, err := os.ReadFile(path)
			return string(data), err
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	write("one", time.Minute)
	if get() != "one" || get() != "one" || reads != 1 {
		t.Fatalf("an unchanged file was read %d times; want once", reads)
	}
	write("two", time.Minute) // the same size and time: another inode
	if got := get(); got != "two" || reads != 2 {
		t.Fatalf("after a change: %q, %d reads; want it read again", got, reads)
	}
	write("new", 0) // changed just now: its stamp may not tell the next change
	get()
	get()
	if reads != 4 {
		t.Errorf("a file changed within the racy window was read %d times in two gets; want every time", reads-2)
	}
	r.Forget(func(string) bool { return false })
	os.Remove(path)
	if _, err := r.Get(path, func() (string, error) { return "", os.ErrNotExist }); err == nil {
		t.Error("a file gone gave no error")
	}
}

func TestRememberedReadsAMissingFileOnceUntilItIsThere(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	var r Remembered[string]
	reads := 0
	get := func() string {
		got, _ := r.Get(path, func() (string, error) {
			reads++
			data, err := os.ReadFile(path)
			if errors.Is(err, fs.ErrNotExist) {
				return "none", nil
			}
			return string(data), err
		})
		return got
	}
	if get() != "none" || get() != "none" || reads != 1 {
		t.Fatalf("a missing file was read %d times; want once", reads)
	}
	if err := os.WriteFile(path, []byte("here"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := get(); got != "here" {
		t.Fatalf("after the file came: %q; want it read", got)
	}
}
