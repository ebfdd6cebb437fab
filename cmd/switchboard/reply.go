package main

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"switchboard/desk"
	"switchboard/mailbox"
)

type replyOptions struct {
	id           string
	content      string
	contentGiven bool
	title        string
	priority     string
	option       string
	again        bool
}

func newReplyCmd(io *streams, g *globals) *cobra.Command {
	opts := &replyOptions{}
	cmd := &cobra.Command{
		Use:   "reply ID --content C | --option O",
		Short: "Answer a message: to its sender, with the same correlation id",
		Long: `Answer a message in your inbox. The reply goes to the message's sender as a
response, titled "Re: <title>", with the message's correlation id (or its id,
when it had none) and in_reply_to set to its id. The message is marked read.
An id prefix is enough when it is unique. A request sent with switchboard ask
--options is answered with --option, which must be one of them. A message you
have answered already is not answered again unless you pass --again.`,
		Example: `  switchboard reply 0193a7c2 --content "Looks good; merge it."
  switchboard reply 0193a7c2 --option yes
  switchboard reply 0193a7c2 --option no --content "Not before the backup finishes."
  switchboard reply 0193a7c2 --content - < review.md`,
		Args: args(1, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			opts.id = a[0]
			opts.contentGiven = cmd.Flags().Changed(desk.ReplyFields.Content.Flag())
			return runReply(io, g, opts)
		},
	}
	f := cmd.Flags()
	fields := desk.ReplyFields
	bodyFlag(f, &opts.content, fields.Content)
	stringFlag(f, &opts.title, fields.Title)
	stringFlag(f, &opts.priority, fields.Priority)
	stringFlag(f, &opts.option, fields.Option)
	boolFlag(f, &opts.again, fields.Again)
	return cmd
}

func runReply(io *streams, g *globals, opts *replyOptions) error {
	ws, err := openWorkspace(g)
	if err != nil {
		return err
	}
	content, err := readBody(io, opts.content, opts.contentGiven)
	if err != nil {
		return err
	}
	sent, err := ws.desk().Reply(desk.ReplyRequest{
		ID: opts.id, Content: content, Option: opts.option, Priority: opts.priority, Title: opts.title, Again: opts.again,
	})
	var answered *desk.AnsweredError
	var option *desk.OptionError
	switch {
	case errors.As(err, &answered):
		return usageError("%v; pass --again to send another answer", err)
	case errors.As(err, &option) && option.Given == "":
		return usageError("this request is answered with --option, one of: %s (--content may add a note)", strings.Join(option.Options, ", "))
	case errors.As(err, &option):
		return usageError("--option %v", err)
	case errors.Is(err, desk.ErrEmptyReply):
		return usageError("a reply needs --content (or --content - to read standard input), or --option for a request with options")
	case errors.Is(err, mailbox.ErrInvalid):
		return usageError("%v", err)
	case sent.ID == "" && err != nil:
		return err
	}
	return printPosted(io, g, sent.ID, reportSend(io, ws, sent, err))
}
