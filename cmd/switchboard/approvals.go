package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"switchboard/internal/safetext"
	"switchboard/rules/approvals"
)

func newApprovalsCmd(io *streams, g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "approvals [revoke ID | set AGENT always|never RULE]",
		Short: "The always and never answers given to helpers' permission prompts",
		Long: `List the answers given once for all to permission prompts: for which agent,
which tool and command (a trailing * covers what follows), always or never,
and who gave it. A later prompt they cover is answered at once, without a
request. revoke ID takes one back (its giver, the agent's ancestors and the
overseers may); the next matching prompt asks again. set gives one ahead,
before any prompt (the agent's ancestors and the overseers may): for a
Gemini CLI helper, whose prompts stay in its pane, a never set so is the
one answer its hooks enforce.`,
		Example: `  switchboard approvals
  switchboard approvals --json
  switchboard approvals revoke 3f2a9c1e --as developer_agent
  switchboard approvals set reviewer_agent-1 never "git push *" --as developer_agent`,
		Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error { return runApprovals(io, g) },
	}
	cmd.AddCommand(&cobra.Command{
		Use:     "revoke ID",
		Short:   "Take an always or never back",
		Example: "  switchboard approvals revoke 3f2a9c1e",
		Args:    args(1, 1),
		RunE:    func(cmd *cobra.Command, a []string) error { return runRevoke(io, g, a[0]) },
	})
	var tool string
	set := &cobra.Command{
		Use:     "set AGENT always|never RULE",
		Short:   "Give an always or never ahead",
		Example: `  switchboard approvals set reviewer_agent-1 always "npm test *" --as developer_agent`,
		Args:    args(3, 3),
		RunE:    func(cmd *cobra.Command, a []string) error { return runSetApproval(io, g, a[0], a[1], a[2], tool) },
	}
	set.Flags().StringVar(&tool, "tool", approvals.ShellTool, "the tool the rule is about; a shell command's rule is Bash for every client")
	cmd.AddCommand(set)
	return cmd
}

func runSetApproval(io *streams, g *globals, agent, decision, rule, tool string) error {
	ws, err := openWorkspace(g)
	if err != nil {
		return err
	}
	a, err := ws.desk().SetApproval(agent, decision, tool, rule)
	if err != nil {
		return deskError(ws, err)
	}
	fmt.Fprintln(io.out, runnable(fmt.Sprintf("%s: %s %s for %s (revoke with `switchboard approvals revoke %s`)", a.ID, a.Decision, approvals.Describe(a.Tool, a.Rule), a.Agent, a.ID), ws.folder.Binary()))
	return nil
}

func runApprovals(io *streams, g *globals) error {
	ws, err := openWorkspace(g)
	if err != nil {
		return err
	}
	all, err := ws.desk().Approvals()
	if err != nil {
		return err
	}
	if g.json {
		return writeJSON(io.out, nonNil(all))
	}
	if len(all) == 0 {
		fmt.Fprintln(io.out, "no approvals: every permission prompt sent up is asked")
		return nil
	}
	tw := io.table("ID", "AGENT", "CALLS", "ANSWER", "BY", "SINCE")
	for _, a := range all {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", a.ID, a.Agent, safetext.Line(approvals.Describe(a.Tool, a.Rule)), a.Decision, a.By, localTime(a.At))
	}
	return tw.Flush()
}

func runRevoke(io *streams, g *globals, id string) error {
	if len(id) < 4 {
		return usageError("give at least 4 characters of the approval's id (see `switchboard approvals`)")
	}
	ws, err := openWorkspace(g)
	if err != nil {
		return err
	}
	revoked, err := ws.desk().RevokeApproval(id)
	if errors.Is(err, approvals.ErrNotFound) || errors.Is(err, approvals.ErrAmbiguous) {
		return fmt.Errorf("%w; `switchboard approvals` lists them", err)
	}
	if err != nil {
		return deskError(ws, err)
	}
	fmt.Fprintf(io.out, "revoked %s: %s %s for %s\n", revoked.ID, revoked.Decision, approvals.Describe(revoked.Tool, revoked.Rule), revoked.Agent)
	return nil
}
