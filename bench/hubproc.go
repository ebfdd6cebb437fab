package bench

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// hubProcess is a hub the bench runs as the person would, `switchboard hub`
// (which runs the program switchboard-hub), and the URL of each host.
type hubProcess struct {
	cmd  *exec.Cmd
	done chan struct{}
	urls map[string]string
}

var hubJoinLine = regexp.MustCompile(`^on (\S+), in its workspace: switchboard up --hub '?([^' ]+)'? --host `)

// startHub runs a hub with its files in dir, on a free loopback port, and
// reads the URL of each host from what it prints.
func startHub(bin, dir string, hosts ...string) (*hubProcess, error) {
	args := []string{"hub", "--listen", "127.0.0.1:0", "--dir", dir}
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
	h := &hubProcess{cmd: cmd, done: make(chan struct{}), urls: make(map[string]string)}
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
			if m := hubJoinLine.FindStringSubmatch(line); m != nil {
				h.urls[m[1]] = m[2]
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
