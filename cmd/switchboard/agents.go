package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"switchboard/desk"
	"switchboard/workspace"

	"github.com/spf13/cobra"
)

// agentRow is one line of `switchboard agents`, and its JSON form.
type agentRow struct {
	desk.Member
	branch string // drawn before the name: the tree's lines down to it
}

func newAgentsCmd(io *streams, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "agents",
		Short: "The team as a tree: name, kind, state, pane, unread and urgent mail",
		Long: `List the agents of the rules with their kind, state (starting, idle, busy,
waiting, interrupted, exited), tmux pane and unread mail. States come from the
agents' hooks, from their panes, or "down" when the team is not up. Agents
started with spawn are listed under their parent, indented.`,
		Example: `  switchboard agents
  switchboard agents --json`,
		Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runAgents(cmd.Context(), io, g)
		},
	}
}

func runAgents(ctx context.Context, io *streams, g *globals) (err error) {
	ws, rulesErr, err := openReading(g)
	if err != nil {
		return err
	}
	warnBrokenRules(io, ws, rulesErr)
	members, err := ws.desk().Team(ctx)
	if err != nil {
		return err
	}
	rows := make([]agentRow, len(members))
	for i, m := range members {
		rows[i] = agentRow{Member: m}
	}
	loops := ws.rules.ParentLoops()
	rows = asTree(rows, loops)
	if len(loops) > 0 {
		defer func() { err = errors.Join(err, errors.New(parentLoopError(ws.folder, loops))) }()
	}
	if g.json {
		return writeJSON(io.out, rows)
	}
	tw := io.table("NAME", "KIND", "STATE", "PANE", "UNREAD", "URGENT")
	for _, r := range rows {
		state := r.State
		if r.ExitStatus != nil {
			state = fmt.Sprintf("%s (%d)", state, *r.ExitStatus)
		}
		pane := r.Pane
		if pane == "" {
			pane = "-"
		}
		name := r.branch + r.Name
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\n", name, r.Kind, state, pane, r.Unread, r.Urgent)
	}
	return tw.Flush()
}

// parentLoopError says which spawned agents' parents loop, and what to do.
func parentLoopError(ws *workspace.Workspace, loops []string) string {
	return runnable(fmt.Sprintf("%s: the parents of %s loop, each spawned under another of them (an edit by hand?); they are listed at the top: "+
		"give one a parent of the team in that file, or close them with `switchboard close %s`", ws.SpawnedFile(), strings.Join(loops, ", "), loops[0]), ws.Binary())
}

// asTree orders rows so that each spawned agent follows its parent, depth
// first; the order among siblings is kept. Agents whose parents loop are
// roots.
func asTree(rows []agentRow, loops []string) []agentRow {
	byName := make(map[string]bool, len(rows))
	for _, r := range rows {
		byName[r.Name] = true
	}
	children := make(map[string][]agentRow)
	var roots []agentRow
	for _, r := range rows {
		if r.Parent != "" && byName[r.Parent] && !slices.Contains(loops, r.Name) {
			children[r.Parent] = append(children[r.Parent], r)
		} else {
			roots = append(roots, r)
		}
	}
	out := make([]agentRow, 0, len(rows))
	// Each child gets ├─ or, the last, └─; what lies below a child that is
	// not the last hangs on its │.
	var add func(r agentRow, depth int, lead string)
	add = func(r agentRow, depth int, lead string) {
		if depth > len(rows) {
			return // parents that loop
		}
		out = append(out, r)
		kids := children[r.Name]
		for i, c := range kids {
			branch, below := "├─ ", "│  "
			if i == len(kids)-1 {
				branch, below = "└─ ", "   "
			}
			c.branch = lead + branch
			add(c, depth+1, lead+below)
		}
	}
	for _, r := range roots {
		add(r, 0, "")
	}
	return out
}
