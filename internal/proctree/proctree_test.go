package proctree

import (
	"context"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// TestEndStopsAPaneThatIgnoresHangups starts a session like a pane's whose
// leader and child both shrug off SIGHUP and SIGTERM, as a client that
// carries on after its terminal went: End must leave none of them.
func TestEndStopsAPaneThatIgnoresHangups(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("sessions are read from /proc")
	}
	cmd := exec.Command("sh", "-c", `trap "" HUP TERM; sh -c 'trap "" HUP TERM; while :; do sleep 1; done' & while :; do sleep 1; done`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	leader := cmd.Process.Pid

	var pids []int
	deadline := time.Now().Add(5 * time.Second)
	for len(pids) < 3 && time.Now().Before(deadline) { // the shells and a sleep
		pids = Session(leader)
		time.Sleep(10 * time.Millisecond)
	}
	if len(pids) < 3 || pids[0] != leader {
		t.Fatalf("session of %d = %v; want the leader first and its children", leader, pids)
	}
	if left := End(context.Background(), []int{leader}, 200*time.Millisecond); len(left) != 0 {
		t.Errorf("still running after End: %v", left)
	}
	<-done
	if left := Session(leader); len(left) != 0 {
		t.Errorf("the session still has %v", left)
	}
}

func TestAliveIsFalseForNoProcess(t *testing.T) {
	if Alive(0) || Alive(-1) {
		t.Error("pid 0 or -1 counted as a process")
	}
}
