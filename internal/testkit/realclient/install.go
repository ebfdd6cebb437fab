package realclient

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Client is an agent client on the npm registry, at the version its
// stand-in was checked against: bump a version on purpose, not by whatever
// the registry serves today.
type Client struct {
	Name    string // as people call it
	Kind    string // the profile kind of an agent that runs it
	Package string
	Version string
	// Interactive is the command of a profile that runs the client in a
	// pane, program first.
	Interactive []string
	// Headless are the arguments that run one turn with prompt, without a
	// terminal (stdin at /dev/null).
	Headless func(prompt string) []string
	// executable finds the program in an npm prefix the package was
	// installed into.
	executable func(prefix string) (string, bool)
}

// The clients the tests run, each the npm package that doctor names for its
// kind (profile.NpmPackage; a test of package profile holds them to it).
// Gemini CLI is given its model, or it first asks
// a small one to pick, in a form the stand-in does not speak.
var (
	ClaudeCode = Client{Name: "Claude Code", Kind: "claude", Package: "@anthropic-ai/claude-code", Version: "2.1.328",
		Interactive: []string{"claude"},
		Headless:    func(prompt string) []string { return []string{"-p", prompt} },
		executable:  nativeClaude}
	Codex = Client{Name: "Codex CLI", Kind: "codex", Package: "@openai/codex", Version: "0.169.0",
		Interactive: []string{"codex"},
		Headless:    func(prompt string) []string { return []string{"exec", "--skip-git-repo-check", prompt} },
		executable:  npmBin("codex")}
	GeminiCLI = Client{Name: "Gemini CLI", Kind: "gemini", Package: "@google/gemini-cli", Version: "0.61.0",
		Interactive: []string{"gemini", "-m", "gemini-2.5-pro"},
		Headless:    func(prompt string) []string { return []string{"-m", "gemini-2.5-pro", "-p", prompt} },
		executable:  npmBin("gemini")}
)

// OptOut, set in the environment, skips the tests of the real clients (and
// their installs from npm), for a quick run on a machine without the
// registry; CI leaves it unset.
const OptOut = "SWITCHBOARD_SKIP_REAL_CLIENTS"

// Install returns the client's program, installed from the npm registry
// into a cache shared by test runs, once. Where npm or the registry cannot
// be reached, the test is skipped, saying so.
func (c Client) Install(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skipf("installs and runs the real %s; skipped with -short", c.Name)
	}
	if os.Getenv(OptOut) != "" {
		t.Skipf("installs and runs the real %s; skipped because %s is set", c.Name, OptOut)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("no cache folder to install %s into: %v", c.Name, err)
	}
	dir := filepath.Join(cache, "switchboard-test", strings.TrimPrefix(filepath.Base(c.Package), "@")+"-"+c.Version)
	if program, ok := c.executable(dir); ok {
		return program
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skipf("npm is not installed, so the real %s cannot be installed: %v", c.Name, err)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	// Test binaries of several packages, or -count runs, may get here at
	// once: one installs, the others wait and find it done.
	lock, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if program, ok := c.executable(dir); ok {
		return program
	}
	// An install cut short must not look finished: build it aside, then
	// rename it into place.
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// npm's default retries take over a minute to give up on an
	// unreachable registry; one quick retry rides out a hiccup. No
	// package needs its install scripts: each ships its program ready.
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--ignore-scripts", "--no-save",
		"--fetch-retries=1", "--fetch-retry-mintimeout=2000", "--fetch-retry-maxtimeout=10000",
		"--prefix", tmp, c.Package+"@"+c.Version)
	cmd.Dir = tmp
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Skipf("npm registry unreachable, or the install failed, so the real %s is not available: %v\n%s", c.Name, err, npmErrors(out))
	}
	t.Logf("installed %s %s from npm in %v", c.Name, c.Version, time.Since(start).Round(time.Second))
	if _, ok := c.executable(tmp); !ok {
		t.Skipf("npm installed %s without its program for %s/%s:\n%s", c.Name, runtime.GOOS, runtime.GOARCH, npmErrors(out))
	}
	os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		t.Fatal(err)
	}
	program, _ := c.executable(dir)
	return program
}

// npmBin finds a package's program where npm links it.
func npmBin(name string) func(string) (string, bool) {
	return func(prefix string) (string, bool) {
		path := filepath.Join(prefix, "node_modules", ".bin", name)
		if _, err := os.Stat(path); err != nil { // follows the link
			return "", false
		}
		return path, true
	}
}

// nativeClaude finds Claude Code's native binary in an npm prefix. The
// package's own bin/claude.exe is a stub until its postinstall script,
// which the install skips, copies the binary over it; npm picks the musl
// build on musl systems.
func nativeClaude(prefix string) (string, bool) {
	platform, ok := map[string]string{
		"linux/amd64": "linux-x64", "linux/arm64": "linux-arm64",
		"darwin/amd64": "darwin-x64", "darwin/arm64": "darwin-arm64",
	}[runtime.GOOS+"/"+runtime.GOARCH]
	if !ok {
		return "", false
	}
	for _, pkg := range []string{platform, platform + "-musl"} {
		path := filepath.Join(prefix, "node_modules", "@anthropic-ai", "claude-code-"+pkg, "claude")
		if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return path, true
		}
	}
	return "", false
}

// npmErrors is the gist of npm's output: its error lines without the stack
// trace, or its last lines when it printed none.
func npmErrors(out []byte) string {
	var errs, all []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		all = append(all, line)
		if strings.HasPrefix(line, "npm error") && !strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(line, "npm error")), "at ") {
			errs = append(errs, line)
		}
	}
	if len(errs) == 0 {
		errs = all[max(0, len(all)-10):]
	}
	return strings.Join(errs[:min(len(errs), 8)], "\n")
}
