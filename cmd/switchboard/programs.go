package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"switchboard/internal/safetext"
	"switchboard/lifecycle"
)

// The programs of switchboard that speak NATS, so that switchboard, which
// every hook and status line starts, links none: the hub runs in one, the
// master of a host of a team across machines in the other, which links no
// NATS server.
const (
	hubProgram  = lifecycle.HubProgram
	linkProgram = lifecycle.LinkProgram
)

// errNoProgram is a program of switchboard found nowhere it is looked for.
var errNoProgram = errors.New("not installed")

// findProgram finds a program of switchboard (hubProgram, linkProgram):
// beside this program first (what go install ./cmd/... makes, and what up
// stages beside the copy the panes run), then on the PATH, then in the
// folder go install puts programs in, which a person who runs switchboard
// with go run may not have on the PATH.
func findProgram(name string) (string, error) {
	if self, err := os.Executable(); err == nil {
		if self, err = filepath.EvalSymlinks(self); err == nil {
			if beside := filepath.Join(filepath.Dir(self), name); isProgram(beside) {
				return beside, nil
			}
		}
	}
	if path, err := exec.LookPath(name); err == nil {
		return path, nil
	}
	where := "neither beside switchboard nor on the PATH"
	if dir := goBin(); dir != "" {
		if installed := filepath.Join(dir, name); isProgram(installed) {
			return installed, nil
		}
		where = fmt.Sprintf("neither beside switchboard, nor on the PATH, nor in %s", dir)
	}
	return "", fmt.Errorf("%s is %w (%s): %s", name, errNoProgram, where, installHint())
}

func isProgram(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// goBin is the folder go install puts programs in, or "" when it cannot
// be told.
func goBin() string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "go", "env", "GOBIN", "GOPATH").Output(); err == nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) == 2 {
			return binOf(lines[0], lines[1])
		}
	}
	if home, err := os.UserHomeDir(); err == nil && os.Getenv("GOPATH") == "" && os.Getenv("GOBIN") == "" {
		return filepath.Join(home, "go", "bin")
	}
	return binOf(os.Getenv("GOBIN"), os.Getenv("GOPATH"))
}

// goBinOnPath is the advice to put the folder of go install on the PATH,
// when it is not there: "" when it is, or cannot be told.
func goBinOnPath() string {
	dir := goBin()
	if dir == "" || slices.Contains(filepath.SplitList(os.Getenv("PATH")), dir) {
		return ""
	}
	return fmt.Sprintf(", and put %s on your PATH", dir)
}

// binOf is the folder of go install, from GOBIN and GOPATH as go env says
// them.
func binOf(gobin, gopath string) string {
	gobin, gopath = strings.TrimSpace(gobin), strings.TrimSpace(gopath)
	if gobin != "" {
		return gobin
	}
	if first := filepath.SplitList(gopath); len(first) > 0 && first[0] != "" {
		return filepath.Join(first[0], "bin")
	}
	return ""
}

// installHint says how to install every program of switchboard at once,
// as a command that runs from the current folder when a checkout of its
// source is found: the current folder's, one above it, or the one this
// program was built from.
func installHint() string {
	if dir, ok := sourceCheckout(); ok {
		command := "go install ./cmd/..."
		if wd, err := os.Getwd(); err != nil || filepath.Clean(wd) != dir {
			command = "go -C " + safetext.ShellWord(fromHere(dir)) + " install ./cmd/..."
		}
		return fmt.Sprintf("install switchboard, %s and %s together with `%s`", hubProgram, linkProgram, command)
	}
	return fmt.Sprintf("install switchboard, %s and %s together: run `go install ./cmd/...` in a checkout of switchboard's source", hubProgram, linkProgram)
}

// sourceCheckout is the root of a checkout of switchboard's source: the
// current folder or one above it, else the folder this program was built
// in, when it is still there.
func sourceCheckout() (string, bool) {
	module := "switchboard"
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Path != "" {
		module = info.Main.Path
	}
	if wd, err := os.Getwd(); err == nil {
		for dir := filepath.Clean(wd); ; dir = filepath.Dir(dir) {
			if isModuleRoot(dir, module) {
				return dir, true
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	// A build without -trimpath knows the file names of its source.
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		dir := filepath.Dir(filepath.Dir(filepath.Dir(file))) // the root above cmd/switchboard
		if isModuleRoot(dir, module) {
			return dir, true
		}
	}
	return "", false
}

// isModuleRoot reports whether dir holds the go.mod of module.
func isModuleRoot(dir, module string) bool {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		if name, ok := strings.CutPrefix(strings.TrimSpace(lines.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(name), `"`) == module
		}
	}
	return false
}
