package main

import (
	"fmt"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"switchboard/desk"
	"switchboard/internal/safetext"
	"switchboard/mailbox"
)

type inboxOptions struct {
	all bool
}

func newInboxCmd(io *streams, g *globals) *cobra.Command {
	opts := &inboxOptions{}
	cmd := &cobra.Command{
		Use:   "inbox [--all]",
		Short: "List your unread messages (or all with --all)",
		Long: `List the current agent's unread messages, oldest first: time, priority, sender,
title and id. --all adds the messages already read. Read one with
switchboard read ID, or the next with switchboard read --next.

A file that switchboard did not deliver (written into the inbox by hand)
is listed with its title marked UNVERIFIED: nothing vouches for its sender
or its content.`,
		Example: `  switchboard inbox --as reviewer_agent
  switchboard inbox --all --json`,
		Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runInbox(io, g, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.all, "all", false, "include messages already read")
	return cmd
}

func runInbox(io *streams, g *globals, opts *inboxOptions) error {
	ws, rulesErr, err := openReading(g)
	if err != nil {
		return err
	}
	warnBrokenRules(io, ws, rulesErr)
	items, skipped, err := ws.desk().Inbox(opts.all)
	if err != nil {
		return err
	}
	// switchboard delivers only whole messages: a file that is none was
	// put there by someone else.
	for _, s := range skipped {
		fmt.Fprintf(io.errOut, "%s: a file in the inbox is not a message, and switchboard did not deliver it: %s\n", mailbox.Unverified, s)
	}
	unverified := 0
	for _, it := range items {
		if it.Unverified {
			unverified++
		}
	}
	if g.json {
		return writeJSON(io.out, items)
	}
	if len(items) == 0 {
		none := "no unread messages"
		if opts.all {
			none = "no messages"
		}
		switch {
		case len(skipped) == 1:
			none += " that can be read, and 1 file that is not a message (above)"
		case len(skipped) > 1:
			none += fmt.Sprintf(" that can be read, and %d files that are not messages (above)", len(skipped))
		}
		fmt.Fprintf(io.out, "%s for %s\n", none, ws.agent)
		return nil
	}
	titleRoom := titleWidth(io.width, items, opts.all)
	header := []string{"TIME", "PRIORITY", "FROM", "TITLE", "ID"}
	if opts.all {
		header = append(header, "STATE")
	}
	tw := io.table(header...)
	for _, it := range items {
		title := safetext.Line(it.Title)
		if it.Unverified {
			title = mailbox.Unverified + ": " + title
		}
		title = clip(title, titleRoom)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s", localTime(it.Time), it.Priority, safetext.Line(it.From), title, it.ID)
		if opts.all {
			state := "new"
			if it.Read {
				state = "read"
			}
			fmt.Fprintf(tw, "\t%s", state)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if unverified > 0 {
		fmt.Fprintf(io.out, "%s: %d listed here were not delivered by switchboard: written into the inbox by hand, their sender and content are unproven\n", mailbox.Unverified, unverified)
	}
	return nil
}

// titleWidth is the room a terminal width columns wide leaves for the
// titles of the inbox, with every other column whole; 0 means no limit (not
// a terminal). Titles keep at least 20 columns, however narrow it is.
func titleWidth(width int, items []desk.Item, withState bool) int {
	if width <= 0 {
		return 0
	}
	const gap = 2
	priority, from, id := len("PRIORITY"), len("FROM"), len("ID")
	for _, it := range items {
		priority = max(priority, utf8.RuneCountInString(it.Priority))
		from = max(from, utf8.RuneCountInString(safetext.Line(it.From)))
		id = max(id, utf8.RuneCountInString(it.ID))
	}
	used := len("2006-01-02 15:04:05") + priority + from + id + 4*gap
	if withState {
		used += len("STATE") + gap
	}
	return max(width-used-1, 20)
}

// clip shortens s to n columns, ending it with "…" when cut; n 0 keeps it.
func clip(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
