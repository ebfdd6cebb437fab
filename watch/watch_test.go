package watch

import (
	"context"
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

func TestFoldersTicksWhereItCannotWatch(t *testing.T) {
	f := NewFolders(10*time.Millisecond, filepath.Join(t.TempDir(), "missing"))
	defer f.Close()
	select {
	case <-f.C:
	case <-time.After(5 * time.Second):
		t.Fatal("no tick for a folder that cannot be watched")
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
