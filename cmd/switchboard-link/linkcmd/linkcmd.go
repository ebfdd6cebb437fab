package linkcmd

import (
	"fmt"
	"io"

	"switchboard/internal/release"
)

// Exit codes, as switchboard's: 2 for a usage error.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// Main runs switchboard-link with args (the program's name left out) and
// returns its exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "--version":
			fmt.Fprintln(stdout, release.Line("switchboard-link"))
			return exitOK
		case "master":
			return runMaster(args[1:], stderr)
		case "check":
			return runCheck(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintln(stderr, "switchboard-link runs the master of a host of a team across machines: run switchboard master, or switchboard up, which run it")
	return exitUsage
}
