package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"switchboard/internal/watch"
	"switchboard/mailbox"
)

var (
	prepareLine = regexp.MustCompile(`switchboard hub prepare --nats '?([^'\s]+)'?`)
	joinLine    = regexp.MustCompile(`on (\S+), in its workspace: switchboard up --hub '?([^'\s]+)'? --host `)
)

// TestATeamRunsOnAStockNATSServer writes the configuration of a stock
// nats-server with switchboard hub config, runs Debian's nats-server (2.9)
// with it, makes the team's stream and buckets with switchboard hub
// prepare, and has two hosts exchange mail and take a lock through it; and
// a host may not read another's mail there either.
func TestATeamRunsOnAStockNATSServer(t *testing.T) {
	server, err := exec.LookPath("nats-server")
	if err != nil {
		t.Skip("nats-server is not installed (apt-get install nats-server; CI installs it): the stock server the configuration is for")
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "nats-server.conf")
	addr := freeAddr(t)
	said, code := switchboardAt(t, dir, "operator", "hub", "config", "--host", "laptop", "--host", "gpu",
		"--listen", addr, "--advertise", "127.0.0.1", "--store", filepath.Join(dir, "js"), "--out", conf)
	if code != 0 {
		t.Fatalf("hub config: exit %d\n%s", code, said)
	}
	urls := make(map[string]string)
	for _, m := range joinLine.FindAllStringSubmatch(said, -1) {
		urls[m[1]] = m[2]
	}
	prepare := prepareLine.FindStringSubmatch(said)
	if prepare == nil || len(urls) != 2 {
		t.Fatalf("hub config printed no prepare line or no join lines:\n%s", said)
	}
	ctx, cancel := context.WithCancel(t.Context())
	nats := exec.CommandContext(ctx, server, "-c", conf)
	out := &lockedBuffer{}
	nats.Stdout, nats.Stderr = out, out
	if err := nats.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = nats.Wait() })
	if !watch.Until(t.Context(), 50*time.Millisecond, 20*time.Second, func() bool { return strings.Contains(out.String(), "Server is ready") }) {
		t.Fatalf("nats-server did not start:\n%s", out)
	}
	if said, code := switchboardAt(t, dir, "operator", "hub", "prepare", "--nats", prepare[1]); code != 0 {
		t.Fatalf("hub prepare: exit %d\n%s", code, said)
	}

	laptop := hostWorkspace(t, "master_agent", "developer_agent")
	gpu := hostWorkspace(t, "tester_agent", "reviewer_agent")
	for root, host := range map[string]string{laptop: "laptop", gpu: "gpu"} {
		m := startMaster(t, root, "--hub", urls[host], "--host", host)
		t.Cleanup(func() { m.stop(t) })
		if !watch.Until(t.Context(), 20*time.Millisecond, 30*time.Second, func() bool { return strings.Contains(m.out.String(), "joined the hub") }) {
			t.Fatalf("the master of %s did not join the stock server:\n%s\nthe server:\n%s", host, m.out, out)
		}
	}
	if said, code := switchboardAt(t, laptop, "developer_agent", "send", "--to", "tester_agent", "--title", "Run the GPU tests"); code != 0 {
		t.Fatalf("send: exit %d\n%s", code, said)
	}
	store := mailbox.NewStore(gpu)
	if !watch.Until(t.Context(), 50*time.Millisecond, 30*time.Second, func() bool {
		entries, _ := store.List("tester_agent", mailbox.All)
		return len(entries) == 1
	}) {
		t.Fatal("the message did not cross the stock server")
	}
	if said, code := switchboardAt(t, laptop, "developer_agent", "lock", "db"); code != 0 {
		t.Fatalf("lock on laptop: exit %d\n%s", code, said)
	}
	if said, code := switchboardAt(t, gpu, "tester_agent", "lock", "db"); code != exitRefused || !strings.Contains(said, "developer_agent on host laptop") {
		t.Errorf("the lock on gpu: exit %d, %s; want it refused, naming its holder", code, said)
	}
}
