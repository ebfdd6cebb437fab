// Command switchboard-hub runs the hub of a team across machines: see
// package switchboard/internal/hubcmd, or switchboard hub --help.
package main

import (
	"os"

	"switchboard/internal/hubcmd"
)

func main() { os.Exit(hubcmd.Main(os.Args[1:], os.Stdout, os.Stderr)) }
