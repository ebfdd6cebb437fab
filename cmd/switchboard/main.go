package main

import (
	"fmt"
	"os"

	"switchboard/internal/profiling"
)

func main() {
	if err := profiling.FromEnv("switchboard"); err != nil {
		fmt.Fprintf(os.Stderr, "switchboard: %v\n", err)
	}
	code := run(os.Args[1:], systemStreams())
	profiling.Stop()
	os.Exit(code)
}
