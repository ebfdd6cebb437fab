package pidlock

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestAcquireWaitsForItsHolder: while one holds the lock, another is told
// who holds it and waits; it gives up with a HeldError naming the holder
// when that takes too long, and gets the lock once the first lets go.
func TestAcquireWaitsForItsHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".lock")
	ctx := context.Background()
	first, err := Acquire(ctx, path, Wait{Poll: time.Millisecond, Limit: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if pid, held := Holder(path); !held || pid != os.Getpid() {
		t.Errorf("Holder = %d, %v; want this process", pid, held)
	}
	var told []int
	_, err = Acquire(ctx, path, Wait{Poll: 5 * time.Millisecond, Limit: 50 * time.Millisecond, Waiting: func(pid int) { told = append(told, pid) }})
	var held *HeldError
	if !errors.As(err, &held) || held.Pid != os.Getpid() {
		t.Errorf("a second Acquire while the first holds it: %v; want a HeldError naming pid %d", err, os.Getpid())
	}
	if len(told) != 1 || told[0] != os.Getpid() {
		t.Errorf("the waiting one was told %v; want the holder's pid %d, once", told, os.Getpid())
	}

	got := make(chan error, 1)
	go func() {
		second, err := Acquire(ctx, path, Wait{Poll: 5 * time.Millisecond, Limit: 10 * time.Second})
		second.Release()
		got <- err
	}()
	first.Release()
	first.Release() // again: nothing
	if err := <-got; err != nil {
		t.Errorf("Acquire after the holder let go: %v", err)
	}
	if _, held := Holder(path); held {
		t.Error("held after both let go")
	}
}

// TestAcquireStopsWithItsContext: a wait ends with its context, and says so.
func TestAcquireStopsWithItsContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".lock")
	first, err := Acquire(context.Background(), path, Wait{})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Acquire(ctx, path, Wait{Poll: time.Millisecond, Limit: 10 * time.Second}); !errors.Is(err, context.Canceled) {
		t.Errorf("Acquire with an ended context = %v; want context.Canceled", err)
	}
}

// TestALinkIsNoLock: a lock file replaced by a link is refused, and the
// file it points to is left as it was.
func TestALinkIsNoLock(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "precious")
	if err := os.WriteFile(target, []byte("keep me\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, ".lock")
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	if lock, err := Acquire(context.Background(), path, Wait{}); err == nil {
		lock.Release()
		t.Error("Acquire took a lock through a link")
	}
	if _, held := Holder(path); held {
		t.Error("Holder reports a link held")
	}
	if b, _ := os.ReadFile(target); string(b) != "keep me\n" {
		t.Errorf("the link's target now holds %q", b)
	}
}

// TestThePidIsWrittenInPlace: a holder's pid overwrites the last one at the
// same length, so that taking the lock needs no new block of a full disk.
func TestThePidIsWrittenInPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".lock")
	if err := os.WriteFile(path, []byte("4242424242424242424242\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	lock, err := Acquire(context.Background(), path, Wait{})
	if err != nil {
		t.Fatal(err)
	}
	lock.Release()
	b, _ := os.ReadFile(path)
	if len(b) != pidWidth {
		t.Errorf("the lock file holds %q; want this pid padded to %d bytes", b, pidWidth)
	}
}
