package main

import (
	"github.com/spf13/cobra"

	"switchboard/desk"
	"switchboard/mailbox"
)

type sendOptions struct {
	to               []string
	title            string
	content          string
	contentGiven     bool
	priority         string
	typ              string
	requiresResponse bool
	correlationID    string
	replyTo          string
}

func newSendCmd(io *streams, g *globals) *cobra.Command {
	opts := &sendOptions{}
	cmd := &cobra.Command{
		Use:   "send --to A[,B] --title T [--content C]",
		Short: "Send a message: check the rules, drop it in your outbox, print its id",
		Long: `Send a message from the current agent (--as, $SWITCHBOARD_AGENT, else operator).
The message is dropped in the sender's outbox and its id printed; the master
delivers it. With no master running it waits in the outbox. The rules are
checked here too: when a recipient is blocked the command exits 3 with the
reason, and the master logs the attempt as blocked and tells the sender.

The content comes from --content, or from standard input with --content - or
when input is piped. --to "*" sends to every other agent the rules allow.`,
		Example: `  switchboard send --as developer_agent --to reviewer_agent --title "Review the login change" --type request
  git diff | switchboard send --to reviewer_agent --title "Diff for review"
  switchboard send --as master_agent --to '*' --title "Freeze: release at 17:00" --priority urgent`,
		Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.contentGiven = cmd.Flags().Changed(desk.SendFields.Content.Flag())
			return runSend(io, g, opts)
		},
	}
	f := cmd.Flags()
	fields := desk.SendFields
	listFlag(f, &opts.to, fields.To)
	stringFlag(f, &opts.title, fields.Title)
	bodyFlag(f, &opts.content, fields.Content)
	stringFlag(f, &opts.priority, fields.Priority)
	stringFlag(f, &opts.typ, fields.Type)
	boolFlag(f, &opts.requiresResponse, fields.RequiresResponse)
	stringFlag(f, &opts.correlationID, fields.CorrelationID)
	stringFlag(f, &opts.replyTo, fields.ReplyTo)
	return cmd
}

func runSend(io *streams, g *globals, opts *sendOptions) error {
	if len(opts.to) == 0 {
		return usageError("--to is required: name one or more agents, or \"*\"")
	}
	if opts.title == "" {
		return usageError("--title is required: one line that says what the message is about")
	}
	ws, err := openWorkspace(g)
	if err != nil {
		return err
	}
	content, err := readBody(io, opts.content, opts.contentGiven)
	if err != nil {
		return err
	}
	msg := &mailbox.Message{
		To:               opts.to,
		Title:            opts.title,
		Content:          content,
		Priority:         opts.priority,
		Type:             opts.typ,
		RequiresResponse: opts.requiresResponse,
		CorrelationID:    opts.correlationID,
		InReplyTo:        opts.replyTo,
	}
	id, err := post(io, ws, msg)
	return printPosted(io, g, id, err)
}
