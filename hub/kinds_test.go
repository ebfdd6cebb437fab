package hub_test

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"switchboard/cmd/switchboard-hub/hubcmd"
	"switchboard/hub"
	"switchboard/hub/embedded"
)

// A hub of each kind a team may run on, with the team's account at hand
// for the test (admin): one embedded hub, an embedded cluster of three,
// and Debian's stock nats-server with the file hub config writes, by
// passwords and by nkeys.

// kindOfHub is a hub a test's hosts join.
type kindOfHub struct {
	name string
	// join is what host joins with: its URL and, for a host known by its
	// nkey, its seed.
	join func(host string) (url string, creds []byte)
	// admin is a connection to the team's account, with every permission.
	admin *nats.Conn
}

// hubKinds starts a hub of each kind for the hosts named, skipping the
// stock server where it is not installed (saying so).
func hubKinds(t *testing.T, hosts ...string) []func(*testing.T) *kindOfHub {
	return []func(*testing.T) *kindOfHub{
		func(t *testing.T) *kindOfHub { return embeddedHub(t) },
		func(t *testing.T) *kindOfHub { return embeddedCluster(t) },
		func(t *testing.T) *kindOfHub { return stockServer(t, false, hosts) },
		func(t *testing.T) *kindOfHub { return stockServer(t, true, hosts) },
	}
}

var kindNames = []string{"embedded", "cluster", "stock-passwords", "stock-nkeys"}

// adminService is the team's service that keeps the hub's own connection.
type adminService struct {
	hub.TeamService
	mu sync.Mutex
	nc *nats.Conn
}

// Serve keeps the hub's own connection: Start serves before it returns.
func (s *adminService) Serve(nc *nats.Conn) error {
	s.mu.Lock()
	s.nc = nc
	s.mu.Unlock()
	return s.TeamService.Serve(nc)
}

func (s *adminService) conn() *nats.Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nc
}

func embeddedHub(t *testing.T) *kindOfHub {
	svc := &adminService{}
	s, err := embedded.Start(hub.CtxFor(t, 20*time.Second), embedded.Config{Dir: t.TempDir(), Service: svc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &kindOfHub{name: "embedded", join: func(h string) (string, []byte) { return s.URL(h), nil }, admin: svc.conn()}
}

// embeddedCluster is three embedded nodes of one cluster, every stream
// kept by all three.
func embeddedCluster(t *testing.T) *kindOfHub {
	secret := bytes.Repeat([]byte{7}, 32)
	ports := []int{hub.FreePort(t), hub.FreePort(t), hub.FreePort(t)}
	nodes := make([]*embedded.Server, 3)
	svcs := make([]*adminService, 3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i := range nodes {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, embedded.SecretFile), secret, 0o600); err != nil {
			t.Fatal(err)
		}
		var peers []string
		for j, p := range ports {
			if j != i {
				peers = append(peers, "nats://127.0.0.1:"+strconv.Itoa(p))
			}
		}
		svcs[i] = &adminService{TeamService: hub.TeamService{Replicas: 3}}
		cfg := embedded.Config{Dir: dir, Service: svcs[i], Cluster: "127.0.0.1:" + strconv.Itoa(ports[i]), Peers: peers, Name: fmt.Sprintf("n%d", i+1)}
		wg.Go(func() { nodes[i], errs[i] = embedded.Start(hub.CtxFor(t, 30*time.Second), cfg) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("node %d: %v", i+1, err)
		}
		t.Cleanup(func() { nodes[i].Close() })
	}
	join := func(h string) (string, []byte) {
		var urls []string
		for _, n := range nodes {
			urls = append(urls, strings.Split(n.URL(h), ",")[0])
		}
		return strings.Join(urls, ","), nil
	}
	return &kindOfHub{name: "cluster", join: join, admin: svcs[0].conn()}
}

// stockServer runs Debian's nats-server with the configuration hub config
// writes for hosts, and makes the team there with hub prepare.
func stockServer(t *testing.T, nkeys bool, hosts []string) *kindOfHub {
	server, err := exec.LookPath("nats-server")
	if err != nil {
		t.Skip("nats-server is not installed (apt-get install nats-server; CI installs it): the stock server hub config writes for")
	}
	dir := t.TempDir()
	conf, secretFile := filepath.Join(dir, "nats.conf"), filepath.Join(dir, "hub.secret")
	addr := "127.0.0.1:" + strconv.Itoa(hub.FreePort(t))
	args := []string{"config", "--listen", addr, "--advertise", "127.0.0.1", "--store", filepath.Join(dir, "js"), "--out", conf, "--secret", secretFile}
	for _, h := range hosts {
		args = append(args, "--host", h)
	}
	if nkeys {
		args = append(args, "--nkeys")
	}
	var out, errOut bytes.Buffer
	if code := hubcmd.Main(args, &out, &errOut); code != 0 {
		t.Fatalf("hub config: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, server, "-c", conf)
	log := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	hub.WaitFor(t, 20*time.Second, "nats-server ready", func() bool { return strings.Contains(log.String(), "Server is ready") })
	// The team's side beside the server, as hub config says to run it.
	serve := &lockedBuffer{}
	sctx, stop := context.WithCancel(context.Background())
	served := make(chan int, 1)
	go func() {
		served <- hubcmd.Run(sctx, []string{"serve", "--nats", "nats://" + addr, "--secret", secretFile}, serve, serve)
	}()
	t.Cleanup(func() { stop(); <-served })
	hub.WaitFor(t, 20*time.Second, "hub serve ready", func() bool {
		if strings.Contains(serve.String(), "switchboard hub serve:") {
			t.Fatalf("hub serve: %s\nthe server:\n%s", serve, log)
		}
		return strings.Contains(serve.String(), "serving the team")
	})
	secret, err := embedded.LoadSecret(secretFile)
	if err != nil {
		t.Fatal(err)
	}
	admin, err := nats.Connect("nats://"+addr, nats.UserInfo("switchboard-admin", secret.AdminPassword()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(admin.Close)
	join := func(h string) (string, []byte) {
		if nkeys {
			seed, err := os.ReadFile(filepath.Join(dir, h+".nk"))
			if err != nil {
				t.Fatal(err)
			}
			return "nats://" + addr, seed
		}
		u := url.URL{Scheme: "nats", User: url.UserPassword(h, secret.HostPassword(h)), Host: addr}
		return u.String(), nil
	}
	name := "stock-passwords"
	if nkeys {
		name = "stock-nkeys"
	}
	return &kindOfHub{name: name, join: join, admin: admin}
}

// lockedBuffer is a buffer a process writes while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
