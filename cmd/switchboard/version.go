package main

import (
	"runtime"
	"runtime/debug"
	"strings"
)

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
