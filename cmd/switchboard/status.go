package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"switchboard/desk"
	"switchboard/hooks"
)

func newStatusCmd(io *streams, g *globals) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "status [--format box|line|json]",
		Short: "Your mailbox and the bulletin, as the hooks show them",
		Long: `Print the current agent's unread mail and the team's status: a box (the default),
one line (for status lines and prompts), or JSON. It reads file names and the
bulletin only, so it is fast enough to run before every prompt.`,
		Example: `  switchboard status
  switchboard status --format line`,
		Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Status lines run this after every answer of an agent: an
			// agent whose mailbox exists needs no rules loaded.
			env, ok := hookEnv(g)
			if !ok {
				ws, rulesErr, err := openReading(g)
				if err != nil {
					return err
				}
				warnBrokenRules(io, ws, rulesErr)
				env.Workspace, env.Agent = ws.folder, ws.agent
			}
			st, err := desk.ReadStatus(env.Workspace, env.Agent)
			if err != nil {
				return err
			}
			if g.json {
				format = "json"
			}
			switch format {
			case "box":
				fmt.Fprint(io.out, hooks.StatusBox(st, hooks.UTF8Terminal()))
			case "line":
				fmt.Fprintln(io.out, hooks.StatusLine(st, hooks.UTF8Terminal()))
			case "json":
				return writeJSON(io.out, st)
			default:
				return usageError("--format is box, line or json, not %q", format)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "box", "box, line or json")
	return cmd
}
