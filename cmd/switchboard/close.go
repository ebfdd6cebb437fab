package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"switchboard/desk"
	"switchboard/internal/safetext"
	"switchboard/lifecycle/worktree"

	"github.com/spf13/cobra"
)

type closeOptions struct {
	agent   string
	discard bool
	yes     bool
}

func newCloseCmd(io *streams, g *globals) *cobra.Command {
	opts := &closeOptions{}
	cmd := &cobra.Command{
		Use:   "close AGENT [--discard [--yes]]",
		Short: "Close a spawned agent's pane, and first those of every agent spawned under it",
		Long: `Close an agent started with switchboard spawn. The agents it spawned, and
theirs, are closed first: cancelling a task cancels the work it started. Their
mailboxes stay; up no longer starts them. The closed agent's parent is told,
unless it is the one closing. Its ancestors and the overseers (and the
operator) may close an agent; others are refused with exit 3.

An agent's git worktree goes with it only when nothing would be lost: no
uncommitted change, and every commit merged or on a remote branch. Otherwise
the tree and its branch stay, and close says where; merge brings the work
home (merge --commit with what was left uncommitted). Closing the agent
again removes a tree kept so, once nothing in it is unmerged.

--discard throws the tree and its branch away whatever they hold, and lists
what went; so does it for an agent closed before. When a tree holds work
nothing else does, close first says what would be lost and asks you to type
yes; where no one can answer (standard input is not a terminal: a script,
an agent) it closes nothing and exits 3, unless --yes answers for you.`,
		Example: `  switchboard close reviewer_agent-1
  switchboard close developer_agent-2 --discard
  switchboard close developer_agent-2 --discard --yes   # in a script: no question
  switchboard merge reviewer_agent-1 --commit && switchboard close reviewer_agent-1`,
		Args: args(1, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			opts.agent = a[0]
			return runClose(cmd.Context(), io, g, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.discard, "discard", false, "remove the agents' worktrees and branches even when they hold work that nothing else does")
	cmd.Flags().BoolVar(&opts.yes, "yes", false, "with --discard: throw that work away without asking")
	return cmd
}

func runClose(ctx context.Context, io *streams, g *globals, opts *closeOptions) error {
	if opts.yes && !opts.discard {
		return usageError("--yes answers the question --discard asks: pass it with --discard, or leave it out")
	}
	ws, err := openWorkspace(g)
	if err != nil {
		return err
	}
	agent := opts.agent
	if opts.discard && !opts.yes {
		lost, err := ws.desk().WouldDiscard(ctx, agent)
		if err != nil {
			return closeError(ws, err)
		}
		if err := confirmDiscard(io, agent, lost); err != nil {
			return err
		}
	}
	closed, err := ws.desk().Close(ctx, agent, opts.discard)
	var notTold *desk.ParentNotToldError
	switch {
	case errors.As(err, &notTold):
		fmt.Fprintln(io.errOut, err)
	case err != nil:
		return closeError(ws, err)
	}
	if g.json {
		return writeJSON(io.out, closed)
	}
	if len(closed.Agents) > 0 {
		fmt.Fprintf(io.out, "closed %s\n", strings.Join(closed.Agents, ", "))
	} else {
		fmt.Fprintf(io.out, "%s was closed before; its worktree:\n", agent)
	}
	mayTend := ws.desk().MayTendClosedTrees()
	for _, fate := range closed.Trees {
		var unsaved *worktree.UnsavedError
		switch {
		case fate.Removed && !fate.Discarded.Empty():
			fmt.Fprintf(io.out, "discarded the worktree of %s (%s, branch %s) with %s\n", fate.Agent, fate.Tree.Path, fate.Tree.Branch, fate.Discarded)
			for _, f := range fate.Discarded.Files {
				fmt.Fprintf(io.out, "  lost: %s\n", f)
			}
			for _, c := range fate.Discarded.Commits {
				fmt.Fprintf(io.out, "  lost commit: %s\n", c)
			}
		case fate.Removed:
			fmt.Fprintf(io.out, "removed the worktree of %s and its branch %s: it held nothing unmerged\n", fate.Agent, fate.Tree.Branch)
		case errors.As(fate.Kept, &unsaved):
			fmt.Fprintln(io.out, runnable(keptHint(unsaved, mayTend), ws.folder.Binary()))
		case errors.Is(fate.Kept, worktree.ErrRefused):
			repo := safetext.ShellWord(fate.Repo)
			fmt.Fprintf(io.out, "the worktree of %s was not removed: %v; switchboard runs no git there. See what it holds; once you are sure, delete the folder yourself, and `git -C %s worktree prune && git -C %s branch -D %s` forgets the tree and its branch\n",
				fate.Agent, safetext.Line(fate.Kept.Error()), repo, repo, fate.Tree.Branch)
		default:
			fmt.Fprintf(io.out, "the worktree of %s was not removed: %v\n", fate.Agent, fate.Kept)
		}
	}
	return nil
}

// closeError is the error of a close the desk refused, in the words of
// this command line.
func closeError(ws *caller, err error) error {
	if errors.Is(err, desk.ErrNotSpawned) {
		return fmt.Errorf("%w, by an overseer or the person, with `switchboard down`", err)
	}
	return deskError(ws, err)
}

// keptHint says why a closed agent's tree was kept and how to bring its
// work home or throw it away, in commands that work now that the agent is
// closed: those of an overseer.
func keptHint(kept *worktree.UnsavedError, mayTend bool) string {
	how := fmt.Sprintf("bring it home with `%s`, or throw it away with `switchboard close %s --discard`", mergeHome(kept), kept.Tree.Agent)
	if !mayTend {
		how = "an overseer (the person, say) may " + how
	}
	return fmt.Sprintf("kept %v; %s", kept, how)
}

// mergeHome is the command that brings home the work a tree holds: with
// what was left uncommitted, committed first.
func mergeHome(kept *worktree.UnsavedError) string {
	merge := "switchboard merge " + kept.Tree.Agent
	if len(kept.Unsaved.Files) > 0 {
		merge += " --commit"
	}
	return merge
}
