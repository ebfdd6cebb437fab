package lifecycle

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

// TestLockUpWaitsForItsHolder: while one up holds the lock, the team is
// being brought up, and another up is told who holds it; it gives up with
// ErrUpBusy, naming the holder, when that takes too long.
func TestLockUpWaitsForItsHolder(t *testing.T) {
	ws := workspace.New(t.TempDir())
	ctx := context.Background()
	if UpUnderWay(ws) {
		t.Fatal("up under way in a new workspace")
	}
	first, err := LockUp(ctx, ws, time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !UpUnderWay(ws) {
		t.Error("no up under way while one holds the lock")
	}
	var told []int
	_, err = LockUp(ctx, ws, 50*time.Millisecond, func(pid int) { told = append(told, pid) })
	if !errors.Is(err, ErrUpBusy) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Errorf("a second LockUp while the first holds it: %v; want ErrUpBusy naming pid %d", err, os.Getpid())
	}
	if len(told) != 1 || told[0] != os.Getpid() {
		t.Errorf("the waiting one was told %v; want the holder's pid %d, once", told, os.Getpid())
	}
	first.Release()
	first.Release() // again: nothing
	if UpUnderWay(ws) {
		t.Error("up still under way after Release")
	}
}
