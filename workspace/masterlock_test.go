package workspace

import (
	"errors"
	"os"
	"testing"
)

func TestOneMasterHoldsTheWorkspace(t *testing.T) {
	ws := New(t.TempDir())
	if err := os.MkdirAll(ws.Store.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, running := ws.MasterRunning(); running {
		t.Fatal("a master runs in a new workspace")
	}
	lock, err := ws.LockMaster()
	if err != nil {
		t.Fatal(err)
	}
	if pid, running := ws.MasterRunning(); !running || pid != os.Getpid() {
		t.Errorf("MasterRunning = %d, %v; want this process", pid, running)
	}
	if _, err := ws.LockMaster(); !errors.Is(err, ErrMasterRunning) {
		t.Errorf("a second master = %v; want ErrMasterRunning", err)
	}
	lock.Release()
	if _, running := ws.MasterRunning(); running {
		t.Error("still running after Release")
	}
}
