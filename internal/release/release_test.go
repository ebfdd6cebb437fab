package release

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestFromBuild(t *testing.T) {
	stamped := func(settings ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{}
		for i := 0; i < len(settings); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return info
	}
	tests := []struct {
		name         string
		info         *debug.BuildInfo
		commit, date string // given to the linker
		want         string
	}{
		{"built in a checkout", stamped("vcs.revision", "24bab75e1f0c9a3d", "vcs.time", "2026-11-28T23:30:00Z", "vcs.modified", "false"), "", "",
			"0.9.0 (commit 24bab75, 2026-11-28)"},
		{"built in a checkout with changes", stamped("vcs.revision", "24bab75e1f0c9a3d", "vcs.time", "2026-11-28T23:30:00Z", "vcs.modified", "true"), "", "",
			"0.9.0 (commit 24bab75-dirty, 2026-11-28)"},
		{"the commit's day in UTC", stamped("vcs.revision", "24bab75e1f0c9a3d", "vcs.time", "2026-11-29T01:30:00+02:00"), "", "",
			"0.9.0 (commit 24bab75, 2026-11-28)"},
		{"the stamp wins over the linker", stamped("vcs.revision", "24bab75e1f0c9a3d", "vcs.time", "2026-11-28T23:30:00Z"), "1111111", "2020-01-01",
			"0.9.0 (commit 24bab75, 2026-11-28)"},
		{"a release built outside a checkout", stamped(), "24bab75", "2026-11-28",
			"0.9.0 (commit 24bab75, 2026-11-28)"},
		{"go run", stamped("-compiler", "gc"), "", "",
			"0.9.0 (commit unknown, date unknown)"},
		{"no build information", nil, "", "",
			"0.9.0 (commit unknown, date unknown)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fromBuild(tt.info, tt.commit, tt.date)
			if got.Number != Number {
				t.Errorf("release number %q; want %q", got.Number, Number)
			}
			if got.String() != strings.Replace(tt.want, "0.9.0", Number, 1) {
				t.Errorf("%q; want %q", got.String(), tt.want)
			}
			program, back, ok := Parse("switchboard " + got.String())
			if !ok || program != "switchboard" || back != got {
				t.Errorf("Parse(%q) = %q, %+v, %v; want switchboard, %+v", "switchboard "+got.String(), program, back, ok, got)
			}
		})
	}
}

func TestParseRefusesOtherLines(t *testing.T) {
	for _, line := range []string{
		"switchboard devel, go1.26.8",
		"switchboard v0.0.0-20261128233000-24bab75e1f0c",
		"switchboard 0.9.0",
		"other 0.9.0 (commit 24bab75, 2026-11-28)",
		"switchboard 0.9.0 (commit 24bab75, 2026-11-28) extra",
	} {
		if _, _, ok := Parse(line); ok {
			t.Errorf("Parse(%q) took it for a version line", line)
		}
	}
}

// TestLinkerFlags builds a program with the linker flags the package's
// documentation gives for a build outside a checkout, and checks that its
// version line carries them: a misspelt variable would be ignored by the
// linker without a word.
func TestLinkerFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program; skipped with -short")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build with")
	}
	exe := filepath.Join(t.TempDir(), "printversion")
	build := exec.Command(gobin, "build", "-buildvcs=false", "-o", exe,
		"-ldflags", "-X switchboard/internal/release.commit=abc1234 -X switchboard/internal/release.date=2026-11-28",
		"./testdata/printversion")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(string(out)), "switchboard "+Number+" (commit abc1234, 2026-11-28)"; got != want {
		t.Errorf("a build with the documented -ldflags says %q; want %q", got, want)
	}
	if doc, _ := os.ReadFile("doc.go"); !strings.Contains(string(doc), "-X switchboard/internal/release.commit=24bab75 -X switchboard/internal/release.date=2026-11-28") {
		t.Errorf("doc.go no longer gives the flags this test builds with")
	}
}
