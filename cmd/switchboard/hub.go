package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"switchboard/agents"
)

// The programs of switchboard that speak NATS, so that switchboard, which
// every hook and status line starts, links none: the hub runs in one, the
// master of a host of a team across machines in the other, which links no
// NATS server.
const (
	hubProgram  = agents.HubProgram
	linkProgram = agents.LinkProgram
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
				return err
			}
			// The hub takes this process's place: Ctrl-C and signals reach
			// it, and its exit status is the command's.
			return syscall.Exec(program, append([]string{program}, args...), os.Environ())
		},
	}
}

// errNoProgram is a program of switchboard that is neither beside it nor
// on the PATH.
var errNoProgram = errors.New("not installed beside switchboard nor on the PATH: run go install ./cmd/... in switchboard's source, which installs switchboard, switchboard-hub and switchboard-link")

// findProgram finds a program of switchboard (hubProgram, linkProgram):
// beside this program first (what go install ./cmd/... makes), then on the
// PATH.
func findProgram(name string) (string, error) {
	if self, err := os.Executable(); err == nil {
		if self, err = filepath.EvalSymlinks(self); err == nil {
			beside := filepath.Join(filepath.Dir(self), name)
			if fi, err := os.Stat(beside); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
				return beside, nil
			}
		}
	}
	if path, err := exec.LookPath(name); err == nil {
		return path, nil
	}
	return "", fmt.Errorf("%s, a program of switchboard that speaks NATS, is %w", name, errNoProgram)
}
