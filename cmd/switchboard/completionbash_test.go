package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"switchboard/internal/tmux"
	"switchboard/profile"
)

// TestBashCompletesWithoutTheBashCompletionPackage presses Tab in a real
// bash, started without any start-up file, so without the bash-completion
// package, after `source <(switchboard completion bash)`: commands, agent
// names and flag values complete, also after "=", and bash prints no
// error.
func TestBashCompletesWithoutTheBashCompletionPackage(t *testing.T) {
	if !tmux.Installed() {
		t.Skip("tmux is not installed: install it (apt-get install -y tmux) to run the completion test")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	root := t.TempDir()
	if _, err := profile.WriteDefaultTeam(root, false); err != nil {
		t.Fatal(err)
	}
	socket := fmt.Sprintf("sbcomp-%d-%d", os.Getpid(), time.Now().UnixNano()%100000)
	tmuxCmd := func(args ...string) *exec.Cmd {
		cmd := exec.Command("tmux", append([]string{"-L", socket, "-f", "/dev/null"}, args...)...)
		cmd.Env = append(os.Environ(), "TMUX=")
		return cmd
	}
	t.Cleanup(func() { tmuxCmd("kill-server").Run() })
	shell := []string{"env", "PATH=" + os.Getenv("PATH"), "SWITCHBOARD_ROOT=" + root, "SWITCHBOARD_AGENT=",
		"HOME=" + t.TempDir(), "INPUTRC=/dev/null", "PS1=$ ", "bash", "--norc", "--noprofile"}
	if out, err := tmuxCmd(append([]string{"new-session", "-d", "-s", "comp", "-x", "200", "-y", "50"}, shell...)...).CombinedOutput(); err != nil {
		t.Fatalf("start bash in tmux: %v: %s", err, out)
	}
	screen := func() string {
		out, _ := tmuxCmd("capture-pane", "-p", "-J", "-S", "-200", "-t", "=comp:").Output()
		return string(out)
	}
	keys := func(keys ...string) {
		t.Helper()
		if out, err := tmuxCmd(append([]string{"send-keys", "-t", "=comp:"}, keys...)...).CombinedOutput(); err != nil {
			t.Fatalf("send-keys: %v: %s", err, out)
		}
	}
	showing := func(what string, cond func(string) bool) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for !cond(screen()) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s; the pane shows:\n%s", what, screen())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	showing("the prompt", func(s string) bool { return strings.HasPrefix(s, "$ ") })
	keys("-l", "declare -F _get_comp_words_by_ref || echo no-bash-completion-package")
	keys("Enter")
	showing("that bash-completion is not loaded", func(s string) bool { return strings.Contains(s, "\nno-bash-completion-package\n") })
	// A line typed before bash is back at its prompt, or while it still
	// handles Ctrl-C, is lost or mixed with the last: wait for an empty
	// prompt each time.
	atPrompt := func(s string) bool {
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		return strings.TrimSpace(lines[len(lines)-1]) == "$"
	}
	keys("-l", "source <(switchboard completion bash)")
	keys("Enter")
	for _, tc := range []struct{ typed, completed string }{
		{"switchboard inb", "switchboard inbox "},
		{"switchboard send --to rev", "switchboard send --to reviewer_agent "},
		{"switchboard send --priority=urg", "switchboard send --priority=urgent "},
		{"switchboard rules explain tester_agent dev", "switchboard rules explain tester_agent developer_agent "},
	} {
		showing("an empty prompt", atPrompt)
		keys("-l", tc.typed)
		keys("Tab")
		showing(fmt.Sprintf("%q to complete to %q", tc.typed, tc.completed), func(s string) bool { return strings.Contains(s, "$ "+tc.completed) })
		keys("C-c")
	}
	if s := screen(); strings.Contains(s, "not found") || strings.Contains(s, "bash:") {
		t.Errorf("bash printed an error while completing:\n%s", s)
	}
}
