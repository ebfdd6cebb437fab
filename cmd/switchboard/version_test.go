package main

import (
	"bytes"
	"strings"
	"testing"

	"switchboard/cmd/switchboard-hub/hubcmd"
	"switchboard/cmd/switchboard-link/linkcmd"
	"switchboard/internal/release"
)

// TestEveryProgramSaysTheSameRelease asks switchboard (both ways),
// switchboard-hub and switchboard-link for their version: each answers one
// line in the same format, with the same release and build.
func TestEveryProgramSaysTheSameRelease(t *testing.T) {
	programs := []struct {
		name string
		args []string
		run  func(args []string, out, errOut *bytes.Buffer) int
	}{
		{"switchboard", []string{"--version"}, func(args []string, out, errOut *bytes.Buffer) int {
			return run(args, &streams{in: strings.NewReader(""), out: out, errOut: errOut})
		}},
		{"switchboard", []string{"version"}, func(args []string, out, errOut *bytes.Buffer) int {
			return run(args, &streams{in: strings.NewReader(""), out: out, errOut: errOut})
		}},
		{"switchboard-hub", []string{"--version"}, func(args []string, out, errOut *bytes.Buffer) int {
			return hubcmd.Main(args, out, errOut)
		}},
		{"switchboard-link", []string{"--version"}, func(args []string, out, errOut *bytes.Buffer) int {
			return linkcmd.Main(args, out, errOut)
		}},
	}
	var first release.Info
	for i, p := range programs {
		var out, errOut bytes.Buffer
		if code := p.run(p.args, &out, &errOut); code != exitOK {
			t.Fatalf("%s %s: exit %d\n%s", p.name, strings.Join(p.args, " "), code, errOut.String())
		}
		name, info, ok := release.Parse(strings.TrimSuffix(out.String(), "\n"))
		if !ok || name != p.name {
			t.Fatalf("%s %s printed %q; want one line like %q", p.name, strings.Join(p.args, " "), out.String(), p.name+" 0.9.0 (commit 24bab75, 2026-11-28)")
		}
		if info.Number != release.Number {
			t.Errorf("%s says release %s; want %s", p.name, info.Number, release.Number)
		}
		if i == 0 {
			first = info
		} else if info != first {
			t.Errorf("%s says %s, switchboard %s", p.name, info, first)
		}
	}
}
