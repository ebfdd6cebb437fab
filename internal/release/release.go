package release

import (
	"fmt"
	"regexp"
	"runtime/debug"
	"time"
)

// Number is the release this source is, or becomes when it is tagged
// v<Number>: it is raised when a release is cut.
const Number = "0.9.0"

// The commit and date of a build that carries no VCS information, set by
// the linker (see the package's documentation).
var (
	commit string
	date   string
)

// Unknown stands for a commit or a date that the build does not know.
const Unknown = "unknown"

// Info is what a build says of itself.
type Info struct {
	Number string // the release number, like 0.9.0
	Commit string // the commit's first seven hex digits, "-dirty" after them when the tree had changes; or Unknown
	Date   string // the commit's day, like 2026-11-28 (UTC); or Unknown
}

// Read is the Info of the running program.
func Read() Info {
	info, _ := debug.ReadBuildInfo() // nil when it has none
	return fromBuild(info, commit, date)
}

// fromBuild is the Info of a build: its VCS stamp when it has one, else the
// commit and date the linker was given, else Unknown.
func fromBuild(info *debug.BuildInfo, linkedCommit, linkedDate string) Info {
	out := Info{Number: Number, Commit: linkedCommit, Date: linkedDate}
	var revision, stamped string
	modified := false
	if info != nil {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.time":
				stamped = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if revision != "" {
		out.Commit = revision[:min(7, len(revision))]
		if modified {
			out.Commit += "-dirty"
		}
	}
	if t, err := time.Parse(time.RFC3339, stamped); err == nil {
		out.Date = t.UTC().Format(time.DateOnly)
	}
	if out.Commit == "" {
		out.Commit = Unknown
	}
	if out.Date == "" {
		out.Date = Unknown
	}
	return out
}

// String is the release and its build, as --version shows them after the
// program's name: "0.9.0 (commit 24bab75, 2026-11-28)".
func (i Info) String() string {
	day := i.Date
	if day == Unknown {
		day = "date " + Unknown
	}
	return fmt.Sprintf("%s (commit %s, %s)", i.Number, i.Commit, day)
}

// Line is what the program named answers to --version:
// "switchboard 0.9.0 (commit 24bab75, 2026-11-28)".
func Line(program string) string { return program + " " + Read().String() }

// lineFormat matches a Line, for the tests of every program.
var lineFormat = regexp.MustCompile(`^(switchboard(?:-hub|-link)?) (\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?) \(commit ([0-9a-f]{7}(?:-dirty)?|unknown), (\d{4}-\d{2}-\d{2}|date unknown)\)$`)

// Parse reads a line that Line wrote back into the program's name and its
// Info; ok is false when line is not one.
func Parse(line string) (program string, info Info, ok bool) {
	m := lineFormat.FindStringSubmatch(line)
	if m == nil {
		return "", Info{}, false
	}
	day := m[4]
	if day == "date "+Unknown {
		day = Unknown
	}
	return m[1], Info{Number: m[2], Commit: m[3], Date: day}, true
}
