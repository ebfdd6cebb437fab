// Command switchboard-link runs the master of a host of a team across
// machines, with its link to the hub: see package linkcmd beside it, or
// switchboard master --help.
package main

import (
	"fmt"
	"os"

	"switchboard/cmd/switchboard-link/linkcmd"
	"switchboard/internal/profiling"
)

func main() {
	if err := profiling.FromEnv("switchboard-link"); err != nil {
		fmt.Fprintf(os.Stderr, "switchboard-link: %v\n", err)
	}
	code := linkcmd.Main(os.Args[1:], os.Stdout, os.Stderr)
	profiling.Stop()
	os.Exit(code)
}
