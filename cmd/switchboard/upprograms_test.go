package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"switchboard/workspace"
)

// installedAlone makes a folder holding a copy of switchboard and the
// scripts given by name, and returns the environment of a person who has
// that folder on the PATH and no other program of switchboard anywhere:
// not on the PATH, not beside switchboard, not where go install puts them.
func installedAlone(t *testing.T, scripts map[string]string) (bin string, env []string) {
	t.Helper()
	bin = t.TempDir()
	self, err := exec.LookPath("switchboard")
	if err != nil {
		t.Fatal(err)
	}
	copyProgram(t, self, filepath.Join(bin, "switchboard"))
	for name, script := range scripts {
		writeTestFile(t, filepath.Join(bin, name), script)
		if err := os.Chmod(filepath.Join(bin, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := []string{bin}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if !isProgram(filepath.Join(dir, linkProgram)) && !isProgram(filepath.Join(dir, "switchboard")) {
			path = append(path, dir)
		}
	}
	env = slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "GOBIN=")
	})
	return bin, append(env, "PATH="+strings.Join(path, string(filepath.ListSeparator)), "GOBIN="+t.TempDir())
}

// copyProgram copies a program (a link to it would run as the original,
// beside the programs it has there).
func copyProgram(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// upOnHub runs switchboard up -d for host gpu of a hub, from bin with env,
// and returns what it said, its exit code and how long it took.
func upOnHub(t *testing.T, tm *team, bin string, env []string) (string, int, time.Duration) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "switchboard"), "up", "-d", "--no-console", "--socket", tm.socket, "--hub", "nats://127.0.0.1:4222", "--host", "gpu")
	cmd.Dir = tm.root
	cmd.Env = append(env, "SWITCHBOARD_ROOT="+tm.root, "SWITCHBOARD_AGENT=", "TMUX=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	code := 0
	if exitErr, ok := err.(*exec.ExitError); ok {
		code = exitErr.ExitCode()
	} else if err != nil {
		t.Fatalf("run switchboard up: %v", err)
	}
	return out.String(), code, took
}

// noSession fails the test when the team's tmux server has a session.
func noSession(t *testing.T, tm *team) {
	t.Helper()
	if out, err := exec.Command("tmux", "-L", tm.socket, "has-session").CombinedOutput(); err == nil {
		panes, _ := exec.Command("tmux", "-L", tm.socket, "list-panes", "-a", "-F", "#{session_name}:#{window_name} #{pane_dead}").CombinedOutput()
		t.Errorf("a tmux session is left up (%s):\n%s", out, panes)
	}
}

// TestUpWithoutTheLinkStartsNothing: a host of a team across machines
// whose switchboard-link is not installed. up says so at once, with the
// command that installs it, and leaves nothing behind: no tmux session, no
// mailboxes, no hub settings.
func TestUpWithoutTheLinkStartsNothing(t *testing.T) {
	tm := newTeam(t)
	bin, env := installedAlone(t, nil)
	out, code, took := upOnHub(t, tm, bin, env)
	if code != exitError {
		t.Errorf("up: exit %d; want %d", code, exitError)
	}
	if took > 5*time.Second {
		t.Errorf("up took %s to say the master cannot start", took.Round(time.Millisecond))
	}
	for _, want := range []string{"switchboard: nothing was started: ", "switchboard-link is not installed", "install switchboard, switchboard-hub and switchboard-link together with `go "} {
		if !strings.Contains(out, want) {
			t.Errorf("up said:\n%s\nwant it to say %q", out, want)
		}
	}
	// The command runs as printed from where up ran: go install in this
	// module's checkout, named from there when it is elsewhere.
	m := regexp.MustCompile("`go (-C (\\S+) )?install \\./cmd/\\.\\.\\.`").FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("up gives no go install command:\n%s", out)
	}
	dir := tm.root
	if m[2] != "" {
		dir = m[2]
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(tm.root, dir)
		}
	}
	if !isModuleRoot(dir, "switchboard") {
		t.Errorf("the install command runs in %s, which holds no checkout of switchboard", dir)
	}
	noSession(t, tm)
	if _, err := os.Stat(filepath.Join(tm.root, "mailboxes")); err == nil {
		t.Errorf("up made the mailboxes of a team it did not start")
	}
	if _, joined, _ := workspace.New(tm.root).Hub(); joined {
		t.Errorf("up kept the hub's settings for a team it did not start")
	}
}

// TestUpSaysAtOnceWhyTheMasterEnded: the master of a host ends as it
// starts (the hub refused it). up says so as soon as it ends, with what
// it printed, and stops the team rather than leave it up without a master.
func TestUpSaysAtOnceWhyTheMasterEnded(t *testing.T) {
	tm := newTeam(t)
	bin, env := installedAlone(t, map[string]string{
		linkProgram: "#!/bin/sh\necho 'switchboard master: the hub refused host gpu: authorization violation' >&2\nexit 1\n",
	})
	out, code, took := upOnHub(t, tm, bin, env)
	if code != exitError {
		t.Errorf("up: exit %d; want %d", code, exitError)
	}
	if took > 5*time.Second {
		t.Errorf("up took %s to say the master ended", took.Round(time.Millisecond))
	}
	// The status is said when tmux has it in time.
	said := regexp.MustCompile(`switchboard: the master (exited with status 1|ended) as it started, so up stopped the team: nothing is left running; it printed:\n    switchboard master: the hub refused host gpu: authorization violation\n`)
	if !said.MatchString(out) {
		t.Errorf("up said:\n%s\nwant it to match %q", out, said)
	}
	noSession(t, tm)
}

// TestUpNamesTheWindowOfAStuckMasterRunnably: a master that neither runs
// nor ends. up gives up after its limit and names the window to look at
// with a command that runs from where up ran, switchboard being on no PATH
// (as for a person who runs it with go run).
func TestUpNamesTheWindowOfAStuckMasterRunnably(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out up's limit for a master; skipped with -short")
	}
	tm := newTeam(t)
	bin, env := installedAlone(t, map[string]string{linkProgram: "#!/bin/sh\nexec sleep 60\n"})
	if err := os.Remove(filepath.Join(bin, "switchboard")); err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	self, _ := exec.LookPath("switchboard")
	copyProgram(t, self, filepath.Join(elsewhere, "switchboard"))
	// The link beside the switchboard that runs, as go install puts it.
	copyProgram(t, filepath.Join(bin, linkProgram), filepath.Join(elsewhere, linkProgram))
	out, code, _ := upOnHub(t, tm, elsewhere, env)
	if code != exitError {
		t.Errorf("up: exit %d; want %d", code, exitError)
	}
	m := regexp.MustCompile("the master did not start within 10s: look at its window \\(`(\\S+) attach`, then Ctrl-b w and choose master\\)").FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("up said:\n%s\nwant it to name the master's window with a command that attaches", out)
	}
	program := m[1]
	if !filepath.IsAbs(program) {
		program = filepath.Join(tm.root, program)
	}
	if !isProgram(program) {
		t.Errorf("the hint runs %s, which is no program from where up ran", m[1])
	}
}
