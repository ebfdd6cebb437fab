package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"switchboard/bench"
	"switchboard/internal/joinline"
	"switchboard/internal/watch"
	"switchboard/mailbox"
	"switchboard/workspace"
)

// hubProcess is `switchboard hub` running, and the URL of each host.
type hubProcess struct {
	cmd  *exec.Cmd
	done chan error
	urls map[string]string
}

// startHub runs the hub on addr with its files in dir, and reads the URLs
// it prints for the hosts.
func startHubProcess(t *testing.T, addr, dir string, hosts ...string) *hubProcess {
	t.Helper()
	return startHubNode(t, []string{"--listen", addr, "--dir", dir}, hosts...)
}

// startHubNode runs a hub with args (a node of a cluster, say), and reads
// the URLs it prints for the hosts.
func startHubNode(t *testing.T, more []string, hosts ...string) *hubProcess {
	t.Helper()
	args := append([]string{"hub"}, more...)
	for _, h := range hosts {
		args = append(args, "--host", h)
	}
	cmd := exec.Command("switchboard", args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errOut := &lockedBuffer{}
	cmd.Stderr = errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &hubProcess{cmd: cmd, done: make(chan error, 1), urls: make(map[string]string)}
	lines := bufio.NewScanner(out)
	first := ""
	for len(h.urls) < len(hosts) && lines.Scan() {
		if first == "" {
			first = lines.Text()
		}
		if l, ok := joinline.Parse(lines.Text()); ok {
			h.urls[l.Host] = l.URLWithPassword()
		}
	}
	go func() { h.done <- cmd.Wait() }()
	t.Cleanup(func() { h.kill() })
	if len(h.urls) < len(hosts) || h.urls[hosts[0]] != first {
		t.Fatalf("the hub printed %q first and URLs %v; it said:\n%s", first, h.urls, errOut)
	}
	return h
}

func (h *hubProcess) kill() {
	if h.cmd.ProcessState == nil {
		h.cmd.Process.Signal(syscall.SIGKILL)
		<-h.done
	}
}

// freeAddr is a loopback address with a port no one listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// hostWorkspace is a workspace of the default team's rules that runs the
// agents named.
func hostWorkspace(t *testing.T, agents ...string) string {
	t.Helper()
	root := t.TempDir()
	if out, err := exec.Command("switchboard", "init", "--root", root).CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	entries, _ := os.ReadDir(filepath.Join(root, "agents"))
	for _, e := range entries {
		os.Remove(filepath.Join(root, "agents", e.Name()))
	}
	for _, a := range agents {
		writeTestFile(t, workspace.New(root).ProfilePath(a), "kind: shell\n")
	}
	return root
}

// exchange is mail between two hosts, each its own workspace and master
// process: laptop runs developer_agent and master_agent, gpu tester_agent
// and reviewer_agent.
type exchange struct {
	t       *testing.T
	roots   map[string]string
	masters map[string]*masterProcess
	sent    map[string]map[string]bool // ids, by recipient
	total   int
}

// newExchange starts the two hosts' masters, joining by urls.
func newExchange(t *testing.T, urls map[string]string) *exchange {
	laptop := hostWorkspace(t, "master_agent", "developer_agent")
	gpu := hostWorkspace(t, "tester_agent", "reviewer_agent")
	x := &exchange{t: t, roots: map[string]string{"laptop": laptop, "gpu": gpu},
		sent: map[string]map[string]bool{"developer_agent": {}, "tester_agent": {}}}
	x.masters = map[string]*masterProcess{
		"laptop": startMaster(t, laptop, "--hub", urls["laptop"], "--host", "laptop"),
		"gpu":    startMaster(t, gpu, "--hub", urls["gpu"], "--host", "gpu"),
	}
	return x
}

// restart kills a host's master with SIGKILL and starts it again, joining
// by the settings it kept.
func (x *exchange) restart(host string) {
	x.masters[host].kill(x.t)
	x.masters[host] = startMaster(x.t, x.roots[host])
}

// send posts total messages, one way then the other, calling disrupt before
// each.
func (x *exchange) send(total int, disrupt func(i int)) {
	x.total += total
	for i := range total {
		disrupt(i)
		from, host, to := "developer_agent", "laptop", "tester_agent"
		if i%2 == 1 {
			from, host, to = "tester_agent", "gpu", "developer_agent"
		}
		m := &mailbox.Message{From: from, To: []string{to}, Title: fmt.Sprintf("message %d", i), Type: mailbox.TypeNotification}
		m.Normalize(time.Now())
		if _, err := mailbox.NewStore(x.roots[host]).Post(from, m); err != nil {
			x.t.Fatal(err)
		}
		x.sent[to][m.ID] = true
	}
}

// check waits for every message to arrive, and fails the test for one lost,
// delivered twice or logged twice.
func (x *exchange) check() {
	t := x.t
	for host, agent := range map[string]string{"gpu": "tester_agent", "laptop": "developer_agent"} {
		store := mailbox.NewStore(x.roots[host])
		var entries []mailbox.Entry
		ok := watch.Until(t.Context(), 50*time.Millisecond, 120*time.Second, func() bool {
			entries, _ = store.List(agent, mailbox.All)
			return len(entries) >= x.total/2
		})
		if !ok {
			t.Fatalf("%s on %s has %d of %d messages; master:\n%s", agent, host, len(entries), x.total/2, x.masters[host].out)
		}
		got := make(map[string]int)
		for _, e := range entries {
			got[e.ID]++
		}
		for id := range x.sent[agent] {
			if got[id] != 1 {
				t.Errorf("%s on %s holds message %s %d times", agent, host, id, got[id])
			}
		}
		if len(entries) != x.total/2 {
			t.Errorf("%s on %s holds %d copies; want %d", agent, host, len(entries), x.total/2)
		}
	}
	for host, root := range x.roots {
		recs, _, err := mailbox.ReadLog(mailbox.NewStore(root).LogPath(), 0)
		if err != nil {
			t.Fatal(err)
		}
		ids := make(map[string]bool)
		for _, r := range recs {
			if ids[r.Message.ID] {
				t.Errorf("%s logged %s twice", host, r.Message.ID)
			}
			ids[r.Message.ID] = true
		}
		if len(ids) != x.total/2 {
			t.Errorf("%s logged %d messages; want the %d it routed", host, len(ids), x.total/2)
		}
	}
}

// stop stops both masters.
func (x *exchange) stop() {
	for _, m := range x.masters {
		m.stop(x.t)
	}
}

// TestMailAcrossHostsSurvivesKills sends 3,000 messages between two hosts,
// each its own workspace and master process, joined by a hub process, while
// either master and the hub are killed with SIGKILL and started again: every
// message arrives once and is logged once, where it was routed.
func TestMailAcrossHostsSurvivesKills(t *testing.T) {
	if testing.Short() {
		t.Skip("3,000 messages across two masters and a hub; skipped with -short")
	}
	addr, hubDir := freeAddr(t), t.TempDir()
	hub := startHubProcess(t, addr, hubDir, "laptop", "gpu")
	x := newExchange(t, hub.urls)
	x.send(3000, func(i int) {
		switch i {
		case 700:
			x.restart("laptop")
		case 1400:
			hub.kill()
			hub = startHubProcess(t, addr, hubDir, "laptop", "gpu")
		case 2100:
			x.restart("gpu")
		}
	})
	x.check()
	if out, _ := exec.Command("switchboard", "doctor", "--root", x.roots["laptop"]).CombinedOutput(); !strings.Contains(string(out), "host laptop of team main reaches the hub at nats://"+addr) {
		t.Errorf("doctor does not say the hub takes laptop:\n%s", out)
	}
	x.stop()
	if !strings.Contains(x.masters["gpu"].out.String(), "joined the hub as host gpu") {
		t.Errorf("the restarted master did not join by its settings:\n%s", x.masters["gpu"].out)
	}
}

// TestWhileTheHubIsAwayTheCommandsSaySo: with the hub killed, `log` says
// where a copy for another host waits instead of "delivered", and `agents`
// shows the other host's agents unreachable within docs/hosts.md's 15 seconds
// and a beat; with the hub back, the copy goes and is delivered.
func TestWhileTheHubIsAwayTheCommandsSaySo(t *testing.T) {
	addr, hubDir := freeAddr(t), t.TempDir()
	hub := startHubProcess(t, addr, hubDir, "laptop", "gpu")
	laptop, _, masters := twoHosts(t, hub)
	for _, m := range masters {
		t.Cleanup(func() { m.stop(t) })
	}
	row := func(agent string) string { return agentsRow(t, laptop, agent) }
	if !watch.Until(t.Context(), 100*time.Millisecond, 30*time.Second, func() bool {
		return strings.Contains(row("tester_agent"), "gpu") && !strings.Contains(row("tester_agent"), "unreachable")
	}) {
		t.Fatalf("tester_agent before the hub died: %q", row("tester_agent"))
	}

	hub.kill()
	if _, code := switchboardAt(t, laptop, "developer_agent", "send", "--to", "tester_agent", "--title", "Run the GPU tests"); code != 0 {
		t.Fatalf("send with the hub away: exit %d", code)
	}
	// The master logs a message before it writes its copies, the one
	// for the hub among them: for a moment the log has the message and
	// the hub's outbox not yet its copy.
	var said string
	if !watch.Until(t.Context(), 50*time.Millisecond, 30*time.Second, func() bool {
		said, _ = switchboardAt(t, laptop, "operator", "log")
		return strings.Contains(said, "waiting for the hub in mailboxes/.hub/outbox: tester_agent")
	}) || strings.Contains(said, "Run the GPU tests  — delivered") {
		t.Fatalf("the log while the copy waits:\n%s", said)
	}
	began := time.Now()
	if !watch.Until(t.Context(), 250*time.Millisecond, 30*time.Second, func() bool { return strings.Contains(row("tester_agent"), "unreachable") }) {
		t.Fatalf("tester_agent 30 s after the hub died: %q", row("tester_agent"))
	}
	if waited := time.Since(began); waited > 21*time.Second {
		t.Errorf("tester_agent showed unreachable %s after the hub died; docs/hosts.md says 15 s", waited.Round(time.Second))
	}

	startHubProcess(t, addr, hubDir, "laptop", "gpu")
	if !watch.Until(t.Context(), 100*time.Millisecond, 60*time.Second, func() bool {
		said, _ = switchboardAt(t, laptop, "operator", "log")
		return strings.Contains(said, "Run the GPU tests  — delivered")
	}) {
		t.Errorf("the log once the hub is back:\n%s", said)
	}
}

// hubCluster is three hub nodes of one cluster, each its own process, on
// this machine as on three (bench.LoopbackNodes), every node with the same
// secret, as the hub tells the person.
type hubCluster struct {
	t     *testing.T
	nodes []hubNode
	hosts []string
}

type hubNode struct{ addr, cluster, dir, name string }

// newHubCluster readies the folders of three nodes, with the URLs they
// print for hosts; start starts each.
func newHubCluster(t *testing.T, hosts ...string) *hubCluster {
	t.Helper()
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		t.Fatal(err)
	}
	clients, clusters, err := bench.LoopbackNodes(3)
	if err != nil {
		t.Fatal(err)
	}
	c := &hubCluster{t: t, nodes: make([]hubNode, 3), hosts: hosts}
	for i := range c.nodes {
		c.nodes[i] = hubNode{addr: clients[i], cluster: clusters[i], dir: t.TempDir(), name: fmt.Sprintf("n%d", i+1)}
		writeTestFile(t, filepath.Join(c.nodes[i].dir, "hub.secret"), string(secret))
	}
	return c
}

// start starts node i, which knows the other two as its peers.
func (c *hubCluster) start(i int) *hubProcess {
	c.t.Helper()
	n := c.nodes[i]
	args := []string{"--listen", n.addr, "--dir", n.dir, "--cluster", n.cluster, "--name", n.name}
	for j, peer := range c.nodes {
		if j != i {
			args = append(args, "--peer", "nats://"+peer.cluster)
		}
	}
	return startHubNode(c.t, args, c.hosts...)
}

// TestMailAcrossHostsSurvivesTheDeathOfAnyHubNode runs the hub as a cluster
// of three nodes, each its own process, and sends 3,000 messages between two
// hosts while one node, then another, is killed with SIGKILL and started
// again, and one master is killed too: every message arrives once and is
// logged once; and a lock keeps its compare-and-swap through the leader
// changes.
func TestMailAcrossHostsSurvivesTheDeathOfAnyHubNode(t *testing.T) {
	if testing.Short() {
		t.Skip("3,000 messages across two masters and three hub nodes; skipped with -short")
	}
	cluster := newHubCluster(t, "laptop", "gpu")
	hubs := make([]*hubProcess, 3)
	for i := range hubs {
		hubs[i] = cluster.start(i)
	}
	for i, n := range cluster.nodes {
		if !strings.Contains(hubs[0].urls["laptop"], "@"+n.addr) {
			t.Fatalf("laptop's URL does not name node %d (%s): %s", i+1, n.addr, hubs[0].urls["laptop"])
		}
	}
	x := newExchange(t, hubs[0].urls)
	for host, m := range x.masters {
		if !watch.Until(t.Context(), 50*time.Millisecond, 60*time.Second, func() bool { return strings.Contains(m.out.String(), "joined the hub") }) {
			t.Fatalf("the master of %s did not join the cluster:\n%s", host, m.out)
		}
	}
	x.send(3000, func(i int) {
		switch i {
		case 600:
			hubs[0].kill()
		case 1200:
			hubs[0] = cluster.start(0)
		case 1500:
			x.restart("gpu")
		case 1800:
			hubs[1].kill()
		case 2400:
			hubs[1] = cluster.start(1)
		}
	})
	x.check()

	// A lock taken on one host is refused on the other, through a leader
	// change of the locks' bucket.
	if said, code := switchboardAt(t, x.roots["laptop"], "developer_agent", "lock", "release"); code != 0 {
		t.Fatalf("lock on laptop: exit %d\n%s", code, said)
	}
	hubs[2].kill()
	if !watch.Until(t.Context(), 250*time.Millisecond, 60*time.Second, func() bool {
		said, code := switchboardAt(t, x.roots["gpu"], "tester_agent", "lock", "release")
		return code == exitRefused && strings.Contains(said, "developer_agent on host laptop")
	}) {
		t.Error("with a node down, the lock laptop holds is not refused on gpu")
	}
	x.stop()
}

// TestHostsJoinAClusterOfHubsWithinSecondsOfItsStart starts the three
// nodes of a cluster of hubs and, at once, the masters of two hosts, as a
// person bringing a team up does: within 10 s of the first node's start,
// each host lists the other's agents, reachable. A node, or a host, that
// asks the cluster anything before it has elected its leader hears
// nothing back, not even that it is not ready: neither may wait out its
// whole deadline, nor back off for long, to join.
func TestHostsJoinAClusterOfHubsWithinSecondsOfItsStart(t *testing.T) {
	cluster := newHubCluster(t, "laptop", "gpu")
	laptop := hostWorkspace(t, "master_agent", "developer_agent")
	gpu := hostWorkspace(t, "tester_agent", "reviewer_agent")
	began := time.Now()
	hubs := make([]*hubProcess, 3)
	for i := range hubs {
		hubs[i] = cluster.start(i)
	}
	for root, host := range map[string]string{laptop: "laptop", gpu: "gpu"} {
		m := startMaster(t, root, "--hub", hubs[0].urls[host], "--host", host)
		t.Cleanup(func() { m.stop(t) })
	}
	lists := func(root, agent, host string) func() bool {
		return func() bool {
			row := agentsRow(t, root, agent)
			return strings.Contains(row, host) && !strings.Contains(row, "unreachable")
		}
	}
	const within = 10 * time.Second
	ctx, cancel := context.WithDeadline(t.Context(), began.Add(within))
	defer cancel()
	if !watch.Every(ctx, 100*time.Millisecond, lists(laptop, "tester_agent", "gpu")) ||
		!watch.Every(ctx, 100*time.Millisecond, lists(gpu, "developer_agent", "laptop")) {
		said, _ := switchboardAt(t, laptop, "operator", "agents")
		t.Fatalf("%s after the cluster's nodes started, the hosts do not list each other's agents; laptop lists:\n%s", within, said)
	}
	t.Logf("each host listed the other's agents %s after the cluster's nodes started", time.Since(began).Round(10*time.Millisecond))
}

// TestTheHubsPasswordIsOnNoCommandLine: up, attached for as long as the
// team runs, is given the hub's URL with laptop's password in it, as the
// hub's first line prints it; its arguments drop the password at once, and
// no process of the team (the tmux server, the master, the agents' panes)
// has it among its arguments or in its environment. Given in the
// environment instead, as the join lines give it, the team has it nowhere
// either.
func TestTheHubsPasswordIsOnNoCommandLine(t *testing.T) {
	hub := startHubProcess(t, freeAddr(t), t.TempDir(), "laptop")
	withPassword := hub.urls["laptop"]
	u, err := url.Parse(withPassword)
	if err != nil {
		t.Fatal(err)
	}
	password, _ := u.User.Password()
	u.User = nil

	for _, given := range []string{"url", "environment"} {
		t.Run(given, func(t *testing.T) {
			tm := newTeam(t)
			args := []string{"up", "--no-console", "--socket", tm.socket, "--host", "laptop", "--hub"}
			env := []string{"SWITCHBOARD_ROOT=" + tm.root, "SWITCHBOARD_AGENT=", "TMUX="}
			if given == "url" {
				args = append(args, withPassword)
			} else {
				args = append(args, u.String())
				env = append(env, "SWITCHBOARD_HUB_PASSWORD="+password)
			}
			// The person's terminal, where up stays attached.
			outer := tm.socket + "-terminal"
			outerCmd := func(a ...string) *exec.Cmd {
				cmd := exec.Command("tmux", append([]string{"-L", outer, "-f", "/dev/null"}, a...)...)
				cmd.Env = append(os.Environ(), "TMUX=")
				return cmd
			}
			t.Cleanup(func() { outerCmd("kill-server").Run() })
			run := append(append([]string{"env"}, env...), append([]string{"switchboard"}, args...)...)
			if out, err := outerCmd(append([]string{"new-session", "-d", "-s", "terminal", "-x", "160", "-y", "40"}, run...)...).CombinedOutput(); err != nil {
				t.Fatalf("start the terminal: %v: %s", err, out)
			}
			tm.waitFor("up to attach to the team", func() bool {
				clients, _ := exec.Command("tmux", "-L", tm.socket, "list-clients", "-F", "#{client_control_mode}").Output()
				return slices.Contains(strings.Fields(string(clients)), "0")
			})
			tm.waitFor("the master to join the hub", func() bool {
				_, ok, _ := workspace.New(tm.root).ReadHubTeam()
				return ok
			})
			upPID, _ := outerCmd("display-message", "-p", "-t", "=terminal:", "#{pane_pid}").Output()
			pids := []string{strings.TrimSpace(string(upPID))}
			server, _ := exec.Command("tmux", "-L", tm.socket, "display-message", "-p", "#{pid}").Output()
			pids = append(pids, strings.TrimSpace(string(server)))
			for _, pid := range tm.panePIDs() {
				pids = append(pids, strconv.Itoa(pid))
			}
			for _, pid := range pids {
				for _, file := range []string{"cmdline", "environ"} {
					data, err := os.ReadFile(filepath.Join("/proc", pid, file))
					if err != nil {
						continue // ended meanwhile
					}
					if strings.Contains(string(data), password) {
						t.Errorf("process %s has the password in its %s: %q", pid, file, strings.ReplaceAll(string(data), "\x00", " "))
					}
				}
			}
			if out, _ := exec.Command("tmux", "-L", tm.socket, "show-environment", "-g").Output(); strings.Contains(string(out), password) {
				t.Errorf("the team's tmux server keeps the password in its environment")
			}
		})
	}
}

// TestAHostThatStopsHasLeft: the doctor of one host checks its own agents
// and says where the others run; when the other host's master stops on
// purpose, its agents show "left" at once, and still after its heartbeat
// lapses, never "unreachable" as a host that was lost does.
func TestAHostThatStopsHasLeft(t *testing.T) {
	hub := startHubProcess(t, freeAddr(t), t.TempDir(), "laptop", "gpu")
	laptop, _, masters := twoHosts(t, hub)
	t.Cleanup(func() { masters["laptop"].stop(t) })
	row := func(agent string) string { return agentsRow(t, laptop, agent) }
	if !watch.Until(t.Context(), 100*time.Millisecond, 30*time.Second, func() bool { return strings.Contains(row("tester_agent"), "gpu") }) {
		t.Fatalf("tester_agent is not shown on gpu: %q", row("tester_agent"))
	}
	doctor, _ := switchboardAt(t, laptop, "operator", "doctor")
	for _, line := range strings.Split(doctor, "\n") {
		if strings.Contains(line, "tester_agent") && !strings.Contains(line, "runs on host gpu") {
			t.Errorf("the laptop's doctor checks gpu's agent as its own: %q", line)
		}
	}

	masters["gpu"].stop(t)
	if !watch.Until(t.Context(), 100*time.Millisecond, 5*time.Second, func() bool { return strings.Contains(row("tester_agent"), "left") }) {
		t.Fatalf("tester_agent 5 s after its host stopped: %q", row("tester_agent"))
	}
	// The heartbeat lapses: the host is gone from the hub's live hosts.
	lapsed := func() bool {
		team, _, _ := workspace.New(laptop).ReadHubTeam()
		for _, m := range team.Members {
			if m.Agent == "tester_agent" {
				return !m.Reachable
			}
		}
		return false
	}
	if !watch.Until(t.Context(), 250*time.Millisecond, 30*time.Second, lapsed) {
		t.Fatal("gpu's heartbeat did not lapse within 30 s of its stop")
	}
	if r := row("tester_agent"); !strings.Contains(r, "left") || strings.Contains(r, "unreachable") {
		t.Errorf("tester_agent after its host's heartbeat lapsed: %q; want left", r)
	}
}

// twoHosts makes the workspaces of two hosts of the hub, laptop (the
// master and the developer) and gpu (the tester and the reviewer), and
// starts the master of each, joined; the caller stops them.
func twoHosts(t *testing.T, hub *hubProcess) (laptop, gpu string, masters map[string]*masterProcess) {
	t.Helper()
	laptop = hostWorkspace(t, "master_agent", "developer_agent")
	gpu = hostWorkspace(t, "tester_agent", "reviewer_agent")
	masters = make(map[string]*masterProcess)
	for root, host := range map[string]string{laptop: "laptop", gpu: "gpu"} {
		m := startMaster(t, root, "--hub", hub.urls[host], "--host", host)
		masters[host] = m
		if !watch.Until(t.Context(), 20*time.Millisecond, 30*time.Second, func() bool { return strings.Contains(m.out.String(), "joined the hub") }) {
			for _, started := range masters {
				started.kill(t)
			}
			t.Fatalf("the master of %s did not join the hub:\n%s", host, m.out)
		}
	}
	return laptop, gpu, masters
}

// agentsRow is the agent's line in `switchboard agents` on the host whose
// workspace is root; "" when it has none.
func agentsRow(t *testing.T, root, agent string) string {
	said, _ := switchboardAt(t, root, "operator", "agents")
	for _, line := range strings.Split(said, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), agent+" ") {
			return line
		}
	}
	return ""
}
