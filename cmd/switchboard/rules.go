package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"switchboard/rules"
)

func newRulesCmd(io *streams, g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "Check the rules file, explain one decision, or draw the team",
		Example: `  switchboard rules check
  switchboard rules explain tester_agent reviewer_agent
  switchboard rules graph --format dot | dot -Tsvg > team.svg`,
	}
	cmd.AddCommand(newRulesCheckCmd(io, g), newRulesExplainCmd(io, g), newRulesGraphCmd(io, g))
	return cmd
}

func newRulesCheckCmd(io *streams, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "check",
		Short: "Validate communication_rules.yaml and warn of allows that can never pass",
		Long: `Load communication_rules.yaml strictly: unknown keys, bad agent names, names of
no agent of the team (neither an entry of allowed_interactions nor a profile in
agents/) and YAML errors fail with the file and line, every mistake at once,
one to a line (a YAML error stops the reading: it comes alone). A valid file is
summarised, with warnings for allows the other side does not match. The running
master reloads the file by itself when it changes, and refuses one that fails.`,
		Example: `  switchboard rules check
  switchboard rules check --json`,
		Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRulesCheck(io, g)
		},
	}
}

func runRulesCheck(io *streams, g *globals) error {
	ws, err := findWorkspace(g)
	if err != nil {
		return err
	}
	r, err := rules.LoadTeamFile(ws)
	if err != nil {
		return err
	}
	warnings := r.Warnings()
	if g.json {
		return writeJSON(io.out, map[string]any{
			"path": r.Path, "valid": true, "agents": r.Agents(),
			"forbidden": len(r.Forbidden), "warnings": nonNil(warnings),
		})
	}
	fmt.Fprintf(io.out, "%s: valid, %d agents and the operator, %d forbidden %s\n", r.Path, r.AgentCount(), len(r.Forbidden), plural(len(r.Forbidden), "entry", "entries"))
	for _, w := range warnings {
		fmt.Fprintf(io.out, "warning: %s\n", w)
	}
	return nil
}

func newRulesExplainCmd(io *streams, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "explain FROM TO",
		Short: "Say whether FROM may send to TO, and which lines of the rules decide it",
		Long: `Say whether FROM may send to TO, and which lines of the rules decide it. Exits
0 when the rules allow it and 3 when they block it, so that scripts can ask.`,
		Example: `  switchboard rules explain developer_agent reviewer_agent
  switchboard rules explain tester_agent reviewer_agent --json`,
		Args: args(2, 2),
		RunE: func(cmd *cobra.Command, a []string) error {
			return runRulesExplain(io, g, a[0], a[1])
		},
	}
}

func runRulesExplain(io *streams, g *globals, from, to string) error {
	ws, err := openWorkspace(g)
	if err != nil {
		return err
	}
	for _, agent := range []string{from, to} {
		if !ws.rules.Knows(agent) {
			return notAnAgent(ws.rules, agent, "")
		}
	}
	d := ws.rules.Decide(from, to)
	if g.json {
		if err := writeJSON(io.out, d); err != nil {
			return err
		}
	} else {
		if d.Allowed {
			fmt.Fprintf(io.out, "allowed: %s → %s\n", from, to)
		} else {
			fmt.Fprintf(io.out, "BLOCKED: %s → %s: %s\n", from, to, d.Reason)
		}
		for _, because := range d.Because {
			fmt.Fprintf(io.out, "  %s\n", because)
		}
	}
	if !d.Allowed {
		return exitWith(exitRefused) // for scripts: if switchboard rules explain A B; then ...
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
