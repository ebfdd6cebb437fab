package main

import (
	"fmt"
	"os"
	"syscall"

	"github.com/spf13/cobra"

	"switchboard/internal/profiling"
)

func newHubCmd(io *streams, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "hub [--listen ADDR] [--dir DIR] [--host NAME]... [--team T]",
		Short: "Run the hub that joins masters on several machines into one team",
		Long: `Run the hub of a team across machines, in the foreground: an embedded NATS
server with JetStream that the master of every host joins (switchboard master
--hub URL --host NAME). Its first line of output is the URL the first --host
joins with; the next lines are the command each host runs.

The hub is the program switchboard-hub, which go install ./cmd/... puts beside
switchboard: switchboard hub runs it with the arguments given, and
switchboard hub --help shows its flags.`,
		Example: `  switchboard hub --host laptop --host gpu
  switchboard hub --listen 0.0.0.0:4222 --dir /var/lib/switchboard-hub --host laptop --host gpu --tls-cert hub.crt --tls-key hub.key`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			program, err := findProgram(hubProgram)
			if err != nil {
				return fmt.Errorf("the hub is a program of its own, and %w", err)
			}
			// The hub takes this process's place: Ctrl-C and signals reach
			// it, and its exit status is the command's.
			profiling.Discard()
			return syscall.Exec(program, append([]string{program}, args...), os.Environ())
		},
	}
}
