package realclient

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// Bubblewrap returns a bubblewrap program: the one on PATH, else the one
// Codex CLI's package carries for its own sandbox. CI installs none on PATH:
// with a bubblewrap there, Codex CLI 0.169 sandboxes its commands with it and
// they fail ("bwrap: execvp codex-linux-sandbox"), while the one it carries
// works. The test is skipped, saying so, where neither is to be had.
func Bubblewrap(t testing.TB) string {
	t.Helper()
	if path, err := exec.LookPath("bwrap"); err == nil {
		return path
	}
	codex := Codex.Install(t)
	dir, err := filepath.EvalSymlinks(codex)
	if err != nil {
		t.Skipf("no bubblewrap on PATH, and Codex CLI's package cannot be found: %v", err)
	}
	// .bin/codex links to the launcher in @openai/codex/bin; the native
	// package sits beside it in node_modules.
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), "..", "..", "codex-linux-*", "vendor", "*", "codex-resources", "bwrap"))
	if len(matches) == 0 {
		matches, _ = filepath.Glob(filepath.Join(filepath.Dir(dir), "..", "node_modules", "@openai", "codex-linux-*", "vendor", "*", "codex-resources", "bwrap"))
	}
	if len(matches) == 0 {
		t.Skipf("no bubblewrap on PATH, nor in Codex CLI's package beside %s", dir)
	}
	return matches[0]
}
