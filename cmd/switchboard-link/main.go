// Command switchboard-link runs the master of a host of a team across
// machines, with its link to the hub: see package
// switchboard/internal/linkcmd, or switchboard master --help.
package main

import (
	"os"

	"switchboard/internal/linkcmd"
)

func main() { os.Exit(linkcmd.Main(os.Args[1:], os.Stdout, os.Stderr)) }
