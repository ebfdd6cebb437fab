package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"switchboard/internal/testkit/realclient"
	"switchboard/internal/watch"
)

// containedRecipe is the trust model's claude-contained script (docs/guarantees.md), running its
// arguments where the recipe runs claude, with bwrap the bubblewrap program
// given: the binds the trust model gives a contained agent, and no other.
func containedRecipe(t *testing.T, bwrap string) string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "..", "docs", "guarantees.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "```sh\n#!/bin/sh\n# claude-contained")
	script, _, closed := strings.Cut(after, "\n```")
	if !ok || !closed {
		t.Fatal("docs/guarantees.md has no claude-contained script: update this test with it")
	}
	const client = `-- claude "$@"`
	if strings.Count(script, client) != 1 {
		t.Fatalf("the claude-contained script of docs/guarantees.md no longer ends with %s: update this test", client)
	}
	const program = "exec bwrap "
	if strings.Count(script, program) != 1 {
		t.Fatalf("the claude-contained script of docs/guarantees.md no longer runs %q: update this test", program)
	}
	script = strings.Replace(script, program, "exec "+bwrap+" ", 1)
	return "#!/bin/sh\n" + strings.Replace(script, client, `-- "$@"`, 1) + "\n"
}

// switchboardAt runs switchboard on the workspace at root as agent and
// returns its output and exit code.
func switchboardAt(t *testing.T, root, agent string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("switchboard", args...)
	cmd.Env = append(os.Environ(), "SWITCHBOARD_ROOT="+root, "SWITCHBOARD_AGENT="+agent, "TMUX=", "TMUX_PANE=")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return string(out), exit.ExitCode()
	}
	if err != nil {
		t.Fatalf("switchboard %v: %v", args, err)
	}
	return string(out), 0
}

// TestAContainedAgentTakesALockAcrossHosts runs an agent of a team across
// machines the way docs/guarantees.md contains one (bubblewrap, exactly its binds),
// with two commands in place of Claude Code: it takes a lock and sets a
// shared value through its host's master, without seeing the host's
// settings, and the other host sees both.
func TestAContainedAgentTakesALockAcrossHosts(t *testing.T) {
	recipe := containedRecipe(t, realclient.Bubblewrap(t))
	hub := startHubProcess(t, freeAddr(t), t.TempDir(), "laptop", "gpu")
	laptop := hostWorkspace(t, "master_agent", "developer_agent")
	gpu := hostWorkspace(t, "tester_agent", "reviewer_agent")
	for root, host := range map[string]string{laptop: "laptop", gpu: "gpu"} {
		m := startMaster(t, root, "--hub", hub.urls[host], "--host", host)
		t.Cleanup(func() { m.stop(t) })
		if !watch.Until(t.Context(), 20*time.Millisecond, 30*time.Second, func() bool { return strings.Contains(m.out.String(), "joined the hub") }) {
			t.Fatalf("the master of %s did not join the hub:\n%s", host, m.out)
		}
	}

	// What the recipe binds is there: the folders the agent works in, its
	// client's home, tmux's folder, the staged binary's.
	home, tmuxDir := t.TempDir(), t.TempDir()
	for _, dir := range []string{filepath.Join(laptop, "src"), filepath.Join(home, ".claude"),
		filepath.Join(tmuxDir, fmt.Sprintf("tmux-%d", os.Getuid())), filepath.Join(laptop, "mailboxes", ".bin")} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(t.TempDir(), "claude-contained")
	writeTestFile(t, script, recipe)

	// Inside: the host's settings and the hub's URL are nowhere to be read;
	// the lock and the value are asked of the master.
	inside := `set -e
settings=${XDG_CONFIG_HOME:-$HOME/.config}/switchboard/hub
if ls "$settings"/*.json 2>/dev/null; then echo "the host's settings are readable"; exit 9; fi
if cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\0' ' ' | grep -q 'nats:/[/]'; then echo "a hub URL is in sight"; exit 9; fi
switchboard lock "db migrations" --reason "adding a column"
switchboard state set release '"2.1"'
`
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", script, "sh", "-c", inside)
	cmd.Env = append(os.Environ(), "SWITCHBOARD_ROOT="+laptop, "SWITCHBOARD_AGENT=developer_agent",
		"HOME="+home, "TMUX_TMPDIR="+tmuxDir, "TMUX=", "TMUX_PANE=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("the contained agent: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "db migrations locked by developer_agent") {
		t.Errorf("the contained agent's lock said:\n%s", out.String())
	}

	// The other host: the lock is held, by whom and where; the value shows
	// within a beat.
	said, code := switchboardAt(t, gpu, "tester_agent", "lock", "db migrations")
	if code != exitRefused || !strings.Contains(said, "developer_agent on host laptop") {
		t.Errorf("the lock on gpu: exit %d, %s; want it refused (exit 3), naming the contained agent", code, said)
	}
	if !watch.Until(t.Context(), 100*time.Millisecond, 30*time.Second, func() bool {
		said, code = switchboardAt(t, gpu, "tester_agent", "state", "get", "release")
		return code == 0 && strings.TrimSpace(said) == `"2.1"`
	}) {
		t.Errorf("gpu's state get release: exit %d, %s; want \"2.1\"", code, said)
	}
}
