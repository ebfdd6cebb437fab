package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"switchboard/desk"
	"switchboard/internal/safetext"
	"switchboard/lifecycle/worktree"
	"switchboard/workspace"

	"github.com/spf13/cobra"
)

// agentRow is one line of `switchboard agents`, and its JSON form.
type agentRow struct {
	desk.Member
	branch string // drawn before the name: the tree's lines down to it
	// Today is what its clients spent since midnight (switchboard usage),
	// in the JSON form alone.
	Today *desk.AgentUsage `json:"usage_today,omitempty"`
}

func newAgentsCmd(io *streams, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "agents",
		Short: "The team as a tree: name, kind, state, pane, unread and urgent mail, worktree",
		Long: `List the agents of the rules with their kind, state (starting, idle, busy,
waiting, interrupted, cancelled, exited), tmux pane and unread mail. States come from the
agents' hooks, from their panes, or "down" when the team is not up. Agents
started with spawn are listed under their parent, indented. When an agent
has a git worktree, BRANCH and CHANGES say its branch and the lines it
added and deleted against its base (switchboard diff AGENT shows them).`,
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
		since, _ := usageSince("today", time.Now())
		if spent, err := ws.desk().Usage(since, nil); err == nil {
			for i := range rows {
				for j := range spent {
					if spent[j].Agent == rows[i].Name {
						rows[i].Today = &spent[j]
					}
				}
			}
		}
		return writeJSON(io.out, rows)
	}
	trees := slices.ContainsFunc(rows, func(r agentRow) bool { return r.Worktree != nil })
	hosts := slices.ContainsFunc(rows, func(r agentRow) bool { return r.Host != "" })
	header := []string{"NAME", "KIND", "STATE", "PANE", "UNREAD", "URGENT"}
	if hosts {
		header = append(header, "HOST")
	}
	if trees {
		header = append(header, "BRANCH", "CHANGES")
	}
	tw := io.table(header...)
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d", name, r.Kind, state, pane, r.Unread, r.Urgent)
		if hosts {
			fmt.Fprintf(tw, "\t%s", cmp.Or(r.Host, "-"))
		}
		switch {
		case r.Worktree != nil && r.Worktree.Refused != "":
			fmt.Fprintf(tw, "\t%s\tREFUSED", r.Worktree.Branch)
		case r.Worktree != nil:
			fmt.Fprintf(tw, "\t%s\t%s", r.Worktree.Branch, changesText(r.Worktree.Changes))
		case trees:
			fmt.Fprint(tw, "\t-\t-")
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// Why a tree was refused is too long for its cell.
	for _, r := range rows {
		if r.Worktree != nil && r.Worktree.Refused != "" {
			fmt.Fprintf(io.errOut, "the worktree of %s is REFUSED: %s\n", r.Name, safetext.Line(r.Worktree.Refused))
		}
	}
	return nil
}

// changesText is a tree's changes as +added/-deleted, and its new files.
func changesText(c worktree.Changes) string {
	text := fmt.Sprintf("+%d/-%d", c.Added, c.Deleted)
	if c.Untracked > 0 {
		text += fmt.Sprintf(" (%d new)", c.Untracked)
	}
	return text
}

// parentLoopError says which spawned agents' parents loop, and what to do.
func parentLoopError(ws *workspace.Workspace, loops []string) string {
	return runnable(fmt.Sprintf("%s: the parents of %s loop, each spawned under another of them (an edit by hand?); they are listed at the top: "+
		"give one a parent of the team in that file, or close them with `switchboard close %s`", ws.SpawnedFile(), strings.Join(loops, ", "), loops[0]), ws.Binary())
}

// asTree orders the rows as the team's tree, each with the branch drawn
// before its name; an agent in a loop of parents is listed at the top.
func asTree(rows []agentRow, loops []string) []agentRow {
	parentOf := func(r agentRow) string {
		if slices.Contains(loops, r.Name) {
			return ""
		}
		return r.Parent
	}
	out := make([]agentRow, 0, len(rows))
	for _, p := range desk.Tree(rows, func(r agentRow) string { return r.Name }, parentOf, nil) {
		r := rows[p.Index]
		r.branch = p.Branch
		out = append(out, r)
	}
	return out
}
