package agents

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"switchboard/workspace"
)

// TestLockUpWaitsForItsHolder: while one up holds the lock, another is told
// who holds it and waits; it gets the lock when the first lets go, and
// gives up with ErrUpBusy, naming the holder, when that takes too long.
func TestLockUpWaitsForItsHolder(t *testing.T) {
	ws := workspace.New(t.TempDir())
	ctx := context.Background()
	first, err := LockUp(ctx, ws, time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	var told []int
	_, err = LockUp(ctx, ws, 50*time.Millisecond, func(pid int) { told = append(told, pid) })
	if !errors.Is(err, ErrUpBusy) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Errorf("a second LockUp while the first holds it: %v; want ErrUpBusy naming pid %d", err, os.Getpid())
	}
	if len(told) != 1 || told[0] != os.Getpid() {
		t.Errorf("the waiting one was told %v; want the holder's pid %d, once", told, os.Getpid())
	}

	got := make(chan error, 1)
	go func() {
		second, err := LockUp(ctx, ws, 10*time.Second, nil)
		second.Release()
		got <- err
	}()
	first.Release()
	first.Release() // again: nothing
	if err := <-got; err != nil {
		t.Errorf("LockUp after the holder let go: %v", err)
	}
}
