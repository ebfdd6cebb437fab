package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"switchboard/desk"
	"switchboard/view/mcpserver"
)

// mcpInboxTick is how often the server looks at the inbox where its folder
// cannot be watched (no inotify, or not made); a watched inbox wakes it
// only when it changes.
const mcpInboxTick = 30 * time.Second

func newMCPCmd(io *streams, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve your switchboard tools over MCP, on standard input and output",
		Long: `Serve the agent's switchboard as Model Context Protocol tools, on standard input
and output, for an agent client to start: send, inbox, read, reply, ask,
agents, spawn, wait, close, cancel, log, show, status, lock, unlock,
state_get, state_set, state_list, bulletin and bulletin_set. The same rules and refusals as
the commands apply, through the same code; a refusal is a tool error that
says why.
The resource switchboard://inbox lists the unread mail, and a client that
subscribes to it is told when mail comes or is read.

Inside a pane of the team the server is that pane's agent; elsewhere --as or
SWITCHBOARD_AGENT say who, as for every command. up wires it into Claude
Code, Codex CLI and Gemini CLI; switchboard hooks install --kind K prints the
wiring for an agent you start yourself.`,
		Example: `  switchboard mcp --as developer_agent      # what a client runs; it speaks JSON-RPC on stdio
  claude mcp add switchboard -- switchboard mcp`,
		Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMCP(cmd.Context(), io, g)
		},
	}
}

func runMCP(ctx context.Context, io *streams, g *globals) error {
	// A rules file being edited, or broken, leaves the agent its mail:
	// the tools that need the rules say why they cannot, until it loads.
	ws, rulesErr, err := openReading(g)
	if err != nil {
		return err
	}
	warnBrokenRules(io, ws, rulesErr)
	open := func() (*desk.Desk, error) {
		ws, _, err := openReading(g)
		if err != nil {
			return nil, err
		}
		return ws.desk(), nil
	}
	srv := mcpserver.New(ws.agent, open, version())
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	mcpserver.Watch(ctx, srv, ws.desk(), mcpInboxTick)
	return srv.Run(ctx, &mcpserver.Stdio{In: io.in, Out: io.out})
}
