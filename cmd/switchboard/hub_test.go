package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

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

var hubLine = regexp.MustCompile(`--hub '?([^' ]+)'? --host (\S+)`)

// startHub runs the hub on addr with its files in dir, and reads the URLs
// it prints for the hosts.
func startHubProcess(t *testing.T, addr, dir string, hosts ...string) *hubProcess {
	t.Helper()
	args := []string{"hub", "--listen", addr, "--dir", dir}
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
		if m := hubLine.FindStringSubmatch(lines.Text()); m != nil {
			h.urls[m[2]] = m[1]
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
	laptop := hostWorkspace(t, "master_agent", "developer_agent")
	gpu := hostWorkspace(t, "tester_agent", "reviewer_agent")
	masters := map[string]*masterProcess{
		"laptop": startMaster(t, laptop, "--hub", hub.urls["laptop"], "--host", "laptop"),
		"gpu":    startMaster(t, gpu, "--hub", hub.urls["gpu"], "--host", "gpu"),
	}
	roots := map[string]string{"laptop": laptop, "gpu": gpu}
	restart := func(host string) {
		masters[host].kill(t)
		masters[host] = startMaster(t, roots[host]) // joins by the settings it kept
	}
	const total = 3000
	sent := map[string]map[string]bool{"developer_agent": {}, "tester_agent": {}}
	for i := range total {
		from, root, to := "developer_agent", laptop, "tester_agent"
		if i%2 == 1 {
			from, root, to = "tester_agent", gpu, "developer_agent"
		}
		m := &mailbox.Message{From: from, To: []string{to}, Title: fmt.Sprintf("message %d", i), Type: mailbox.TypeNotification}
		m.Normalize(time.Now())
		store := mailbox.NewStore(root)
		if _, err := store.Post(from, m); err != nil {
			t.Fatal(err)
		}
		sent[to][m.ID] = true
		switch i {
		case 700:
			restart("laptop")
		case 1400:
			hub.kill()
			hub = startHubProcess(t, addr, hubDir, "laptop", "gpu")
		case 2100:
			restart("gpu")
		}
	}
	for host, agent := range map[string]string{"gpu": "tester_agent", "laptop": "developer_agent"} {
		store := mailbox.NewStore(roots[host])
		var entries []mailbox.Entry
		ok := watch.Until(t.Context(), 50*time.Millisecond, 120*time.Second, func() bool {
			entries, _ = store.List(agent, mailbox.All)
			return len(entries) >= total/2
		})
		if !ok {
			t.Fatalf("%s on %s has %d of %d messages; master:\n%s", agent, host, len(entries), total/2, masters[host].out)
		}
		got := make(map[string]int)
		for _, e := range entries {
			got[e.ID]++
		}
		for id := range sent[agent] {
			if got[id] != 1 {
				t.Errorf("%s on %s holds message %s %d times", agent, host, id, got[id])
			}
		}
		if len(entries) != total/2 {
			t.Errorf("%s on %s holds %d copies; want %d", agent, host, len(entries), total/2)
		}
	}
	for host, root := range roots {
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
		if len(ids) != total/2 {
			t.Errorf("%s logged %d messages; want the %d it routed", host, len(ids), total/2)
		}
	}
	if out, _ := exec.Command("switchboard", "doctor", "--root", laptop).CombinedOutput(); !strings.Contains(string(out), "host laptop reaches the hub") {
		t.Errorf("doctor does not say the hub takes laptop:\n%s", out)
	}
	for _, m := range masters {
		m.stop(t)
	}
	if !strings.Contains(masters["gpu"].out.String(), "joined the hub as host gpu") {
		t.Errorf("the restarted master did not join by its settings:\n%s", masters["gpu"].out)
	}
}

// TestWhileTheHubIsAwayTheCommandsSaySo: with the hub killed, `log` says
// where a copy for another host waits instead of "delivered", and `agents`
// shows the other host's agents unreachable within the README's 15 seconds
// and a beat; with the hub back, the copy goes and is delivered.
func TestWhileTheHubIsAwayTheCommandsSaySo(t *testing.T) {
	addr, hubDir := freeAddr(t), t.TempDir()
	hub := startHubProcess(t, addr, hubDir, "laptop", "gpu")
	laptop := hostWorkspace(t, "master_agent", "developer_agent")
	gpu := hostWorkspace(t, "tester_agent", "reviewer_agent")
	for root, host := range map[string]string{laptop: "laptop", gpu: "gpu"} {
		m := startMaster(t, root, "--hub", hub.urls[host], "--host", host)
		t.Cleanup(func() { m.stop(t) })
		if !watch.Until(t.Context(), 20*time.Millisecond, 30*time.Second, func() bool { return strings.Contains(m.out.String(), "joined the hub") }) {
			t.Fatalf("the master of %s did not join the hub:\n%s", host, m.out)
		}
	}
	row := func(agent string) string {
		said, _ := switchboardAt(t, laptop, "operator", "agents")
		for _, line := range strings.Split(said, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), agent+" ") {
				return line
			}
		}
		return ""
	}
	if !watch.Until(t.Context(), 100*time.Millisecond, 30*time.Second, func() bool {
		return strings.Contains(row("tester_agent"), "gpu") && !strings.Contains(row("tester_agent"), "unreachable")
	}) {
		t.Fatalf("tester_agent before the hub died: %q", row("tester_agent"))
	}

	hub.kill()
	if _, code := switchboardAt(t, laptop, "developer_agent", "send", "--to", "tester_agent", "--title", "Run the GPU tests"); code != 0 {
		t.Fatalf("send with the hub away: exit %d", code)
	}
	var said string
	if !watch.Until(t.Context(), 50*time.Millisecond, 30*time.Second, func() bool {
		said, _ = switchboardAt(t, laptop, "operator", "log")
		return strings.Contains(said, "Run the GPU tests")
	}) {
		t.Fatalf("the message is not in the log:\n%s", said)
	}
	if !strings.Contains(said, "waiting for the hub in mailboxes/.hub/outbox: tester_agent") || strings.Contains(said, "Run the GPU tests  — delivered") {
		t.Errorf("the log while the copy waits:\n%s", said)
	}
	began := time.Now()
	if !watch.Until(t.Context(), 250*time.Millisecond, 30*time.Second, func() bool { return strings.Contains(row("tester_agent"), "unreachable") }) {
		t.Fatalf("tester_agent 30 s after the hub died: %q", row("tester_agent"))
	}
	if waited := time.Since(began); waited > 21*time.Second {
		t.Errorf("tester_agent showed unreachable %s after the hub died; the README says 15 s", waited.Round(time.Second))
	}

	startHubProcess(t, addr, hubDir, "laptop", "gpu")
	if !watch.Until(t.Context(), 100*time.Millisecond, 60*time.Second, func() bool {
		said, _ = switchboardAt(t, laptop, "operator", "log")
		return strings.Contains(said, "Run the GPU tests  — delivered")
	}) {
		t.Errorf("the log once the hub is back:\n%s", said)
	}
}
