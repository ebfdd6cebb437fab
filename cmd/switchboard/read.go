package main

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"switchboard/mailbox"
)

type readOptions struct {
	id   string
	next bool
	peek bool
}

func newReadCmd(io *streams, g *globals) *cobra.Command {
	opts := &readOptions{}
	cmd := &cobra.Command{
		Use:   "read [ID | --next] [--peek]",
		Short: "Print a message and mark it read",
		Long: `Print one message of the current agent and mark it read. Give its id (a unique
prefix is enough), or --next for the next unread one: urgent first, then
normal, then low, each oldest first. --peek leaves it unread.`,
		Example: `  switchboard read --next
  switchboard read 0193a7c2 --peek
  switchboard read --next --json`,
		Args: args(0, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			if len(a) == 1 {
				opts.id = a[0]
			}
			return runRead(io, g, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.next, "next", false, "the next unread message")
	cmd.Flags().BoolVar(&opts.peek, "peek", false, "do not mark it read")
	return cmd
}

func runRead(io *streams, g *globals, opts *readOptions) error {
	if (opts.id == "") == !opts.next {
		return usageError("give a message id or --next, not both")
	}
	ws, err := openWorkspace(g)
	if err != nil {
		return err
	}
	var entry mailbox.Entry
	if opts.next {
		unread, err := ws.store.List(ws.agent, mailbox.Unread)
		if err != nil {
			return err
		}
		if len(unread) == 0 {
			fmt.Fprintf(io.errOut, "no unread messages for %s\n", ws.agent)
			return nil
		}
		entry = slices.MinFunc(unread, func(a, b mailbox.Entry) int {
			if d := priorityRank(a.Priority) - priorityRank(b.Priority); d != 0 {
				return d
			}
			return a.Time.Compare(b.Time)
		})
	} else if entry, err = ws.store.Find(ws.agent, opts.id); err != nil {
		return err
	}
	m, err := mailbox.Load(entry.Path)
	if err != nil {
		return err
	}
	if !opts.peek {
		if _, err := ws.store.MarkRead(ws.agent, entry); err != nil {
			return err
		}
	}
	if g.json {
		return writeJSON(io.out, m)
	}
	printMessage(io.out, m)
	return nil
}

func priorityRank(p string) int {
	switch p {
	case mailbox.PriorityUrgent:
		return 0
	case mailbox.PriorityNormal:
		return 1
	default:
		return 2
	}
}
