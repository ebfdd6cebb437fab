package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"switchboard/internal/safetext"
)

// invocation is how the person can run switchboard again from where they
// are, for the hints this binary prints: "switchboard" when that name finds
// one on the PATH; else the workspace's staged copy (which the panes run),
// by a path from here; else this very binary, or "go run ./cmd/switchboard"
// when go run built it in a temporary folder that is gone after.
func invocation(staged string) string {
	if _, err := exec.LookPath("switchboard"); err == nil {
		return "switchboard"
	}
	if staged != "" {
		if _, err := os.Stat(staged); err == nil {
			return safetext.ShellWord(fromHere(staged))
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return "switchboard"
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		if _, err := os.Stat(filepath.Join("cmd", "switchboard")); err == nil {
			return "go run ./cmd/switchboard"
		}
	}
	return safetext.ShellWord(exe)
}

// fromHere is path relative to the current folder when it lies below it,
// else as it is.
func fromHere(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(rel, "..") {
		return "." + string(filepath.Separator) + rel
	}
	return path
}

// runnable rewrites the commands a hint quotes (`switchboard ...`) to run
// as printed from here.
func runnable(text, staged string) string {
	if !strings.Contains(text, "`switchboard") {
		return text
	}
	inv := invocation(staged)
	if inv == "switchboard" {
		return text
	}
	return strings.ReplaceAll(text, "`switchboard", "`"+inv)
}

// stagedHere is the staged binary of the workspace around the current
// folder, or "" when there is none.
func stagedHere(g *globals) string {
	ws, err := findWorkspace(g)
	if err != nil {
		return ""
	}
	return ws.Binary()
}

// quotedCommand is a command a hint quotes: `switchboard VERB ...`.
var quotedCommand = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`switchboard ([a-z]+)([^`]*)`") })

// actsAsSomeone are the commands whose meaning depends on who runs them.
var actsAsSomeone = map[string]bool{
	"inbox": true, "read": true, "reply": true, "send": true, "ask": true, "wait": true,
	"status": true, "show": true, "log": true, "lock": true, "unlock": true, "state": true,
	"bulletin": true, "spawn": true, "close": true, "cancel": true, "interrupt": true,
	"approvals": true,
}

// asCaller adds --as to the commands a hint quotes that act as someone,
// when the person gave --as: run as printed, they act as the same agent.
func asCaller(text, as string) string {
	if as == "" {
		return text
	}
	return quotedCommand().ReplaceAllStringFunc(text, func(q string) string {
		m := quotedCommand().FindStringSubmatch(q)
		if !actsAsSomeone[m[1]] || strings.Contains(m[2], "--as") {
			return q
		}
		return "`switchboard " + m[1] + m[2] + " --as " + safetext.ShellWord(as) + "`"
	})
}
