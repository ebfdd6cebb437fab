package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"switchboard/rules"
)

func newRulesGraphCmd(io *streams, g *globals) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "graph [--format mermaid|dot]",
		Short: "Draw who may send to whom, as a Mermaid or Graphviz diagram",
		Long: `Draw the team as the rules shape it. An arrow is a send the rules allow; a pair
that may write to each other gets one arrow with two heads. A dashed red arrow
is a send a forbidden entry blocks, labelled with the entry's reason. Sends
blocked only because no allow names them are not drawn: that would be nearly
every pair.

Overseers (may read every message) and interrupters (may ESC-interrupt an
agent) are marked in their node's label and styled apart; agents spawned at
run time are dashed and name their parent. The operator is drawn only when the
rules name it: otherwise it may talk with everyone.

--format mermaid (the default) prints a Mermaid flowchart: GitHub, GitLab and
many editors render it in Markdown with nothing to install; paste it into a
` + "```mermaid" + ` block. --format dot prints Graphviz's dot language, for
dot -Tsvg or -Tpng. --json prints the nodes and the directed edges instead.`,
		Example: `  switchboard rules graph > team.mmd
  switchboard rules graph --format dot | dot -Tsvg > team.svg
  switchboard rules graph --json | jq '.edges[] | select(.allowed | not)'`,
		Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRulesGraph(io, g, format)
		},
	}
	cmd.Flags().StringVar(&format, "format", "mermaid", "mermaid or dot")
	return cmd
}

func runRulesGraph(io *streams, g *globals, format string) error {
	// A bad format is the caller's mistake whatever the workspace holds, so
	// it is told before the rules are read.
	if format != "mermaid" && format != "dot" {
		return usageError("--format is mermaid or dot, not %q", format)
	}
	ws, err := findWorkspace(g)
	if err != nil {
		return err
	}
	// The agents spawned at run time are added to the file's team, so the
	// drawing shows the team as it runs.
	r, err := rules.LoadTeam(ws)
	if err != nil {
		return err
	}
	graph := r.Graph()
	if g.json {
		return writeJSON(io.out, graph)
	}
	if format == "dot" {
		_, err = fmt.Fprint(io.out, graph.Dot())
	} else {
		_, err = fmt.Fprint(io.out, graph.Mermaid())
	}
	if err != nil {
		return fmt.Errorf("write the graph: %w", err)
	}
	return nil
}
