package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"switchboard/desk"
	"switchboard/mailbox"
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
			opts.contentGiven = cmd.Flags().Changed("content")
			return runAsk(cmd.Context(), io, g, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.to, "to", "", "whom to ask (default: your parent, for a spawned agent)")
	f.StringVar(&opts.title, "title", "", "the question, one line")
	f.StringVar(&opts.content, "content", "", "details; \"-\" reads standard input")
	f.StringSliceVar(&opts.options, "options", nil, "the answers accepted, comma-separated, e.g. yes,no")
	f.DurationVar(&opts.timeout, "timeout", 300*time.Second, "how long to wait; 0 waits forever")
	f.StringVar(&opts.priority, "priority", mailbox.PriorityNormal, "urgent, normal or low")
	f.StringVar(&opts.forward, "forward", "", "pass this request from your inbox up, and answer it with what you hear")
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
	var forwarded *mailbox.Message
	var forwardedEntry mailbox.Entry
	if opts.forward != "" {
		if forwardedEntry, err = ws.store.Find(ws.agent, opts.forward); err != nil {
			return err
		}
		if forwarded, err = mailbox.Load(forwardedEntry.Path); err != nil {
			return err
		}
		if opts.title == "" {
			opts.title = forwarded.Title
		}
		if opts.options == nil {
			opts.options = forwarded.Options()
		}
		body := fmt.Sprintf("%s asks, through %s: %s", forwarded.From, ws.agent, forwarded.Title)
		if forwarded.Content != "" {
			body += "\n\n" + forwarded.Content
		}
		opts.content, opts.contentGiven = body, true
	}
	if opts.title == "" {
		return usageError("--title is required: the question, in one line")
	}
	to := opts.to
	if to == "" && forwarded != nil {
		to = defaultAsked(ws)
	}
	content, err := readBody(io, opts.content, opts.contentGiven)
	if err != nil {
		return err
	}
	wait := "for as long as it takes"
	if opts.timeout > 0 {
		wait = "up to " + opts.timeout.String()
	}
	res, err := ws.desk().Ask(ctx, desk.AskRequest{
		To: to, Title: opts.title, Content: content, Options: opts.options, Priority: opts.priority, Timeout: opts.timeout,
	}, func(a desk.Answer) {
		if _, running := ws.masterRunning(); !running {
			fmt.Fprintln(io.errOut, runnable("master not running, message queued; it is delivered when `switchboard master` starts", ws.folder.Binary()))
		}
		fmt.Fprintf(io.errOut, "asked %s (request %s); waiting %s for the answer\n", a.To, a.Request, wait)
	})
	var outcome error
	var refused *desk.RefusedAnswerError
	errors.As(err, &refused)
	switch {
	case errors.Is(err, desk.ErrNoOneToAsk):
		return usageError("--to is required: name the agent to ask (only a spawned agent has a parent to ask by default)")
	case res.Request == "" && err != nil:
		return reportSend(io, ws, desk.Sent{}, err)
	case errors.Is(err, desk.ErrNoAnswer):
		outcome = &codedError{code: exitTimedOut, err: err}
	case err != nil: // a refused answer, or a wait cut short: deny
		outcome = err
	}
	if forwarded != nil && (err == nil || refused != nil || res.TimedOut) {
		// A wait stopped by the person (Ctrl-C) decides nothing for the
		// agent below: it keeps waiting for an answer, or its own deny.
		if err := answerForwarded(io, ws, forwarded, forwardedEntry, res.Answer); err != nil {
			return err
		}
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

// answerForwarded answers the request that was passed up with what came
// back, as its recipient would have.
func answerForwarded(io *streams, ws *caller, orig *mailbox.Message, entry mailbox.Entry, answer string) error {
	option := ""
	if len(orig.Options()) > 0 {
		option = answer
	}
	if _, err := post(io, ws, orig.Reply(answer, option)); err != nil {
		return err
	}
	_, err := ws.store.MarkRead(ws.agent, entry)
	return err
}

// defaultAsked is whom a request passed up without --to goes to: a spawned
// agent's parent, else the operator.
func defaultAsked(ws *caller) string {
	if parent := ws.desk().Parent(); parent != "" {
		return parent
	}
	return mailbox.Operator
}
