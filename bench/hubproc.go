package bench

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"switchboard/internal/joinline"
)

// hubProcess is a hub the bench runs as the person would, `switchboard hub`
// (which runs the program switchboard-hub), and the URL of each host.
type hubProcess struct {
	cmd  *exec.Cmd
	dir  string
	done chan struct{}
	urls map[string]string
}

// startHub runs a hub with its files in dir, on a free loopback port, and
// reads the URL of each host from what it prints.
func startHub(bin, dir string, hosts ...string) (*hubProcess, error) {
	return startHubNode(bin, []string{"--listen", "127.0.0.1:0", "--dir", dir}, hosts...)
}

// startHubNode runs a hub with args (a node of a cluster, say), and reads
// the URL of each host from what it prints.
func startHubNode(bin string, more []string, hosts ...string) (*hubProcess, error) {
	args := append([]string{"hub"}, more...)
	dir := ""
	for i, a := range more {
		if a == "--dir" && i+1 < len(more) {
			dir = more[i+1]
		}
	}
	for _, h := range hosts {
		args = append(args, "--host", h)
	}
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var errOut strings.Builder
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the hub %s: %w", bin, err)
	}
	h := &hubProcess{cmd: cmd, dir: dir, done: make(chan struct{}), urls: make(map[string]string)}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	deadline := time.After(readyTimeout)
	for len(h.urls) < len(hosts) {
		select {
		case line, ok := <-lines:
			if !ok {
				_ = cmd.Wait()
				return nil, fmt.Errorf("the hub ended before it said each host's URL: %s", strings.TrimSpace(errOut.String()))
			}
			if l, ok := joinline.Parse(line); ok {
				h.urls[l.Host] = l.URLWithPassword()
			}
		case <-deadline:
			h.stop()
			return nil, fmt.Errorf("the hub did not say each host's URL within %s", readyTimeout)
		}
	}
	go func() {
		for range lines {
		}
		_ = cmd.Wait()
		close(h.done)
	}()
	return h, nil
}

// stop ends the hub, and waits for it.
func (h *hubProcess) stop() {
	_ = h.cmd.Process.Signal(os.Interrupt)
	select {
	case <-h.done:
	case <-time.After(readyTimeout):
		_ = h.cmd.Process.Kill()
		<-h.done
	}
}

// LoopbackNodes are the client and cluster addresses of n hub nodes on
// this machine as on n machines: node i on 127.0.0.<i+1>, each on the same
// two ports, so that a node's host lines, which name the other nodes on its
// own client port, are right.
func LoopbackNodes(n int) (clients, clusters []string, err error) {
	for range 20 {
		client, cluster := sharedPort(n), sharedPort(n)
		if client == "" || cluster == "" || client == cluster {
			continue
		}
		clients, clusters = make([]string, n), make([]string, n)
		for i := range n {
			ip := fmt.Sprintf("127.0.0.%d", i+1)
			clients[i], clusters[i] = net.JoinHostPort(ip, client), net.JoinHostPort(ip, cluster)
		}
		return clients, clusters, nil
	}
	return nil, nil, fmt.Errorf("no port is free on each of 127.0.0.1 to 127.0.0.%d", n)
}

// sharedPort is a port no one listens on at 127.0.0.1 to 127.0.0.<n>, or
// "" when the one tried is taken on one of them.
func sharedPort(n int) string {
	first, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return ""
	}
	defer first.Close()
	_, port, _ := net.SplitHostPort(first.Addr().String())
	for i := 2; i <= n; i++ {
		l, err := net.Listen("tcp", net.JoinHostPort(fmt.Sprintf("127.0.0.%d", i), port))
		if err != nil {
			return ""
		}
		defer l.Close()
	}
	return port
}
