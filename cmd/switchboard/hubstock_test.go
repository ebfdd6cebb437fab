package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"switchboard/internal/joinline"
	"switchboard/internal/watch"
	"switchboard/mailbox"
	"switchboard/workspace"
)

// serveLine is the line of hub config that serves the team beside the
// server: its words after "switchboard".
var serveLine = regexp.MustCompile(`(?m)^\s*switchboard (hub serve .*)$`)

// linesOf reads what hub config printed: the serve line's arguments, and
// each host's join line.
func linesOf(said string) (serve []string, joins map[string]joinline.Line) {
	joins = make(map[string]joinline.Line)
	for _, line := range strings.Split(said, "\n") {
		if l, ok := joinline.Parse(line); ok {
			joins[l.Host] = l
		}
	}
	if m := serveLine.FindStringSubmatch(said); m != nil {
		for _, w := range strings.Fields(m[1]) {
			serve = append(serve, strings.Trim(w, "'"))
		}
	}
	return serve, joins
}

// TestATeamRunsOnAStockNATSServer writes the configuration of a stock
// nats-server with switchboard hub config, runs Debian's nats-server (2.9)
// with it, makes the team's stream and buckets with switchboard hub
// prepare, and has two hosts exchange mail and take a lock through it; and
// a host may not read another's mail there either.
func TestATeamRunsOnAStockNATSServer(t *testing.T) {
	runOnStockServer(t, false)
}

// TestHostsJoinAStockNATSServerByTheirNKeys is the same with each host a
// user by its nkey (hub config --nkeys): each joins with its seed, and a
// host that presents another's seed under its own name is refused.
func TestHostsJoinAStockNATSServerByTheirNKeys(t *testing.T) {
	runOnStockServer(t, true)
}

func runOnStockServer(t *testing.T, nkeys bool) {
	server, err := exec.LookPath("nats-server")
	if err != nil {
		t.Skip("nats-server is not installed (apt-get install nats-server; CI installs it): the stock server the configuration is for")
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "nats-server.conf")
	addr := freeAddr(t)
	config := []string{"hub", "config", "--host", "laptop", "--host", "gpu",
		"--listen", addr, "--advertise", "127.0.0.1", "--store", filepath.Join(dir, "js"), "--out", conf}
	if nkeys {
		config = append(config, "--nkeys")
	}
	said, code := switchboardAt(t, dir, "operator", config...)
	if code != 0 {
		t.Fatalf("hub config: exit %d\n%s", code, said)
	}
	serve, joins := linesOf(said)
	if serve == nil || len(joins) != 2 {
		t.Fatalf("hub config printed no serve line or no join lines:\n%s", said)
	}
	for _, l := range joins {
		if strings.Contains(said, l.URLWithPassword()) && l.Password != "" {
			t.Fatalf("hub config printed a URL with host %s's password in it:\n%s", l.Host, said)
		}
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
	// The team's side, beside the server, as the line says.
	served := exec.CommandContext(ctx, "switchboard", serve...)
	served.Env = append(os.Environ(), "SWITCHBOARD_ROOT=", "SWITCHBOARD_AGENT=")
	serving := &lockedBuffer{}
	served.Stdout, served.Stderr = serving, serving
	if err := served.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = served.Wait() })
	if !watch.Until(t.Context(), 50*time.Millisecond, 20*time.Second, func() bool { return strings.Contains(serving.String(), "serving the team") }) {
		t.Fatalf("hub serve did not serve the team:\n%s", serving)
	}

	laptop := hostWorkspace(t, "master_agent", "developer_agent")
	gpu := hostWorkspace(t, "tester_agent", "reviewer_agent")
	if nkeys {
		// gpu's seed under laptop's name: the server knows the key as
		// gpu's, with gpu's permissions, and laptop's master is refused.
		if !slices.Contains(joins["gpu"].More, "--hub-creds") || joins["gpu"].Password != "" || strings.Contains(joins["gpu"].URL, "@") {
			t.Fatalf("gpu joins with %+v; want a URL without a password, and its seed", joins["gpu"])
		}
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		master := exec.CommandContext(ctx, "switchboard", append([]string{"master", "--root", laptop, "--hub", joins["gpu"].URL, "--host", "laptop"}, joins["gpu"].More...)...)
		master.Env = append(os.Environ(), "SWITCHBOARD_ROOT=", "SWITCHBOARD_AGENT=")
		if said, err := master.CombinedOutput(); err == nil || ctx.Err() != nil || !strings.Contains(string(said), "join the hub as host laptop: ") || !strings.Contains(string(said), "permission denied") {
			t.Fatalf("laptop's master with gpu's seed: %v; want it refused at once, saying why:\n%s", err, said)
		}
		if said, code := switchboardAt(t, laptop, "operator", "master", "--hub", "nats://"+addr, "--host", "laptop", "--hub-creds", conf); code != exitUsage || !strings.Contains(said, "neither a NATS credentials file nor a user's nkey seed") {
			t.Errorf("--hub-creds with the server's configuration: exit %d\n%s", code, said)
		}
	}
	for root, host := range map[string]string{laptop: "laptop", gpu: "gpu"} {
		l := joins[host]
		// As the line says: the password in the environment.
		m := startMasterWith(t, root, []string{workspace.HubPasswordEnv + "=" + l.Password}, append([]string{"--hub", l.URL, "--host", host}, l.More...)...)
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
