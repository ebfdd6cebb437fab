package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

type cancelOptions struct {
	agent  string
	reason string
}

func newCancelCmd(io *streams, g *globals) *cobra.Command {
	opts := &cancelOptions{}
	cmd := &cobra.Command{
		Use:   "cancel AGENT [--reason R]",
		Short: "Stop an agent and every agent spawned under it, leaves first",
		Long: `Cancel an agent's work and that of every agent spawned under it, the deepest
first: the master sends ESC to each pane, then types "[CANCELLED] by <you>:
<reason>". Each spawned agent is marked cancelled, which ends its parent's
switchboard wait at once (exit 1). An agent may cancel the agents it
spawned; the interrupts list of the rules and the operator may cancel anyone.
A cancelled agent stays so: close it, or spawn another for new work.`,
		Example: `  switchboard cancel reviewer_agent-1 --reason "the plan changed"
  switchboard cancel developer_agent --reason "stop everything" --as master_agent`,
		Args: args(1, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			opts.agent = a[0]
			return runCancel(io, g, opts)
		},
	}
	cmd.Flags().StringVar(&opts.reason, "reason", "", "why: one line each agent sees")
	return cmd
}

func runCancel(io *streams, g *globals, opts *cancelOptions) error {
	ws, err := openWorkspace(g)
	if err != nil {
		return err
	}
	cancelled, err := ws.desk().Cancel(opts.agent, opts.reason)
	if err != nil {
		return deskError(ws, err)
	}
	if g.json {
		return writeJSON(io.out, map[string]any{"cancelled": cancelled})
	}
	fmt.Fprintf(io.out, "cancelled %s\n", strings.Join(cancelled, ", "))
	if _, running := ws.masterRunning(); !running {
		fmt.Fprintln(io.errOut, runnable("master not running: the notices are delivered, with ESC, when `switchboard master` starts", ws.folder.Binary()))
	}
	return nil
}
