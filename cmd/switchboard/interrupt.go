package main

import (
	"errors"

	"github.com/spf13/cobra"

	"switchboard/desk"
)

type interruptOptions struct {
	agent  string
	reason string
}

func newInterruptCmd(io *streams, g *globals) *cobra.Command {
	opts := &interruptOptions{}
	cmd := &cobra.Command{
		Use:   "interrupt AGENT --reason R",
		Short: "Stop an agent with ESC and tell it why (interrupt rights, or your own helpers)",
		Long: `Interrupt an agent: the master sends ESC to its pane, pauses, then types
"[INTERRUPT] [FROM: <you>] <reason> (switchboard read <id>)". Agents in the
rules' interrupts list (default: the oversight list) and the operator may
interrupt anyone, and an agent the agents it spawned; from anyone else it
exits 3 and sends nothing. A shell agent is shown the notice
instead: its shell would run typed text.`,
		Example: `  switchboard interrupt developer_agent --reason "Stop: the API changed, rebase first" --as master_agent`,
		Args:    args(1, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			opts.agent = a[0]
			return runInterrupt(io, g, opts)
		},
	}
	cmd.Flags().StringVar(&opts.reason, "reason", "", "why: one line the agent sees")
	return cmd
}

func runInterrupt(io *streams, g *globals, opts *interruptOptions) error {
	ws, err := openWorkspace(g)
	if err != nil {
		return err
	}
	sent, err := ws.desk().Interrupt(opts.agent, opts.reason)
	if errors.Is(err, desk.ErrNoReason) {
		return usageError("--reason is required: say why the agent should stop")
	}
	var unknown *desk.UnknownAgentError
	if errors.Is(err, desk.ErrNoRight) || errors.As(err, &unknown) {
		return deskError(ws, err)
	}
	return printPosted(io, g, sent.ID, reportSend(io, ws, sent, err))
}
