package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// newVersionCmd is `switchboard version`, what people type before they find
// --version; hidden, as --version is the documented way.
func newVersionCmd(io *streams) *cobra.Command {
	return &cobra.Command{
		Use:    "version",
		Short:  "Print the version (as --version does)",
		Hidden: true,
		Args:   args(0, 0),
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintf(io.out, "switchboard %s\n", version())
			return nil
		},
	}
}

// version is what --version prints: the module's version when built from
// a tagged release, else the commit Go stamped into the binary, with
// "+changes" when the tree had uncommitted changes, and the Go release.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (built without module information), " + runtime.Version()
	}
	v := info.Main.Version
	var revision, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if v == "" || v == "(devel)" {
		v = "devel"
		if revision != "" {
			v += " " + revision[:min(12, len(revision))]
			if modified == "true" {
				v += "+changes"
			}
		}
	}
	return strings.TrimSpace(v) + ", " + runtime.Version()
}
