// Command switchboard-hub runs the hub of a team across machines: see
// package hubcmd beside it, or switchboard hub --help.
package main

import (
	"fmt"
	"os"

	"switchboard/cmd/switchboard-hub/hubcmd"
	"switchboard/internal/profiling"
)

func main() {
	if err := profiling.FromEnv("switchboard-hub"); err != nil {
		fmt.Fprintf(os.Stderr, "switchboard-hub: %v\n", err)
	}
	code := hubcmd.Main(os.Args[1:], os.Stdout, os.Stderr)
	profiling.Stop()
	os.Exit(code)
}
