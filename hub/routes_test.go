package hub_test

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"switchboard/cmd/switchboard-hub/hubcmd"
	"switchboard/hub"
)

// TestAStockClusterTakesNoStrangerAsANode: a node configured by hub config
// --cluster knows its peers by a password derived from the team's
// secret; a nats-server of anyone's whose route points at its cluster port
// is refused, and its clients hear nothing of the team.
func TestAStockClusterTakesNoStrangerAsANode(t *testing.T) {
	server, err := exec.LookPath("nats-server")
	if err != nil {
		t.Skip("nats-server is not installed (apt-get install nats-server; CI installs it): the stock server hub config writes for")
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "n1.conf")
	addr, clusterPort := "127.0.0.1:"+strconv.Itoa(hub.FreePort(t)), hub.FreePort(t)
	var out, errOut bytes.Buffer
	args := []string{"config", "--host", "a", "--listen", addr, "--advertise", "127.0.0.1", "--store", filepath.Join(dir, "js"), "--out", conf,
		"--cluster", "127.0.0.1:" + strconv.Itoa(clusterPort), "--peer", "nats://127.0.0.1:" + strconv.Itoa(hub.FreePort(t)), "--name", "n1"}
	if code := hubcmd.Main(args, &out, &errOut); code != 0 {
		t.Fatalf("hub config: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	n1 := runServer(t, server, "-c", conf)
	hub.WaitFor(t, 20*time.Second, "node n1 ready", func() bool { return strings.Contains(n1.String(), "Server is ready") })

	strangerAddr := "127.0.0.1:" + strconv.Itoa(hub.FreePort(t))
	stranger := runServer(t, server, "-a", "127.0.0.1", "-p", strings.Split(strangerAddr, ":")[1], "--cluster_name", "switchboard",
		"--cluster", "nats://127.0.0.1:"+strconv.Itoa(hub.FreePort(t)), "--routes", "nats://127.0.0.1:"+strconv.Itoa(clusterPort))
	hub.WaitFor(t, 20*time.Second, "the stranger's route refused", func() bool {
		return strings.Contains(n1.String(), "Router connection closed: Authentication Failure")
	})
	if strings.Contains(stranger.String(), "JetStream cluster") && strings.Contains(stranger.String(), "n1") {
		t.Fatalf("the stranger joined n1's cluster:\n%s", stranger)
	}
}

func runServer(t *testing.T, server string, args ...string) *lockedBuffer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, server, args...)
	log := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	return log
}
