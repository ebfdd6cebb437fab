package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"switchboard/desk"
)

type askOptions struct {
	to           string
	title        string
	content      string
	contentGiven bool
	options      []string
	timeout      time.Duration
	priority     string
	forward      string
}

func newAskCmd(io *streams, g *globals) *cobra.Command {
	opts := &askOptions{}
	cmd := &cobra.Command{
		Use:   "ask --to A --title T [--content C] [--options yes,no] [--timeout 300s]",
		Short: "Send a request and wait for its answer; deny when none comes",
		Long: `Send a request that needs an answer and wait for the reply that carries its
correlation id. The answer is printed and ask exits 0. Other mail that arrives
meanwhile stays in the inbox, unread.

With --options the answer must be one of them (the other side answers with
switchboard reply ID --option VALUE). When no answer comes within --timeout
(0 waits forever), or the answer is none of the options, ask prints the safe
answer, deny, and exits 4 (timed out) or 1 (not an option).

A spawned agent asks its parent when --to is left out. A parent that cannot
decide passes the request up with --forward: it asks in turn (the operator by
default, or its own parent) and answers the original with what it hears.`,
		Example: `  switchboard ask --to master_agent --title "May I drop the users table?" --options yes,no
  switchboard ask --to reviewer_agent --title "Which branch holds the fix?" --timeout 10m
  switchboard ask --forward 0193a7c2 --to operator      # pass a child's request up to the person`,
		Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.contentGiven = cmd.Flags().Changed(desk.AskFields.Content.Flag())
			return runAsk(cmd.Context(), io, g, opts)
		},
	}
	f := cmd.Flags()
	fields := desk.AskFields
	stringFlag(f, &opts.to, fields.To)
	stringFlag(f, &opts.title, fields.Title)
	bodyFlag(f, &opts.content, fields.Content)
	listFlag(f, &opts.options, fields.Options)
	f.DurationVar(&opts.timeout, "timeout", 300*time.Second, "how long to wait; 0 waits forever")
	stringFlag(f, &opts.priority, fields.Priority)
	stringFlag(f, &opts.forward, fields.Forward)
	return cmd
}

func runAsk(ctx context.Context, io *streams, g *globals, opts *askOptions) error {
	if opts.timeout < 0 {
		return usageError("--timeout is %s; give a positive duration, or 0 to wait forever", opts.timeout)
	}
	ws, err := openWorkspace(g)
	if err != nil {
		return err
	}
	if opts.title == "" && opts.forward == "" {
		return usageError("--title is required: the question, in one line")
	}
	content := ""
	if opts.forward == "" {
		if content, err = readBody(io, opts.content, opts.contentGiven); err != nil {
			return err
		}
	}
	wait := "for as long as it takes"
	if opts.timeout > 0 {
		wait = "up to " + opts.timeout.String()
	}
	res, err := ws.desk().Ask(ctx, desk.AskRequest{
		To: opts.to, Title: opts.title, Content: content, Options: opts.options, Priority: opts.priority, Timeout: opts.timeout, Forward: opts.forward,
	}, func(a desk.Answer) {
		if _, running := ws.masterRunning(); !running {
			fmt.Fprintln(io.errOut, runnable("master not running, message queued; it is delivered when `switchboard master` starts", ws.folder.Binary()))
		}
		fmt.Fprintf(io.errOut, "asked %s (request %s); waiting %s for the answer\n", a.To, a.Request, wait)
	})
	var outcome error
	switch {
	case errors.Is(err, desk.ErrNoQuestion):
		return usageError("--title is required: the question, in one line")
	case errors.Is(err, desk.ErrNoOneToAsk):
		return usageError("--to is required: name the agent to ask (only a spawned agent has a parent to ask by default)")
	case res.Request == "" && err != nil:
		return reportSend(io, ws, desk.Sent{}, err)
	case errors.Is(err, desk.ErrNoAnswer):
		outcome = timedOutError(err)
	case err != nil: // a refused answer, or a wait cut short: deny
		outcome = err
	}
	if g.json {
		if err := writeJSON(io.out, res); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(io.out, res.Answer)
	}
	return outcome
}
