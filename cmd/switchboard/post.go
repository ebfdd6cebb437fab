package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"switchboard/desk"
	"switchboard/mailbox"
)

// post checks a message the caller composed and drops it in the caller's
// outbox (desk.Send). A message the rules block is posted all the same, so
// that the attempt is in the audit log for the overseers and the sender
// gets the BLOCKED notice; post then fails with exit 3 and the reason. A
// broadcast only fails when it reaches no one. It returns the message's id,
// which desk.Send fills in.
func post(io *streams, ws *caller, msg *mailbox.Message) (id string, err error) {
	sent, err := ws.desk().Send(msg)
	return sent.ID, reportSend(io, ws, sent, err)
}

// reportSend says in this command line's words what came of a message
// desk.Send posted: its refusals as usage errors and exit codes, the notes
// of a queued or partly blocked message on standard error.
func reportSend(io *streams, ws *caller, sent desk.Sent, err error) error {
	var unknown *desk.UnknownAgentError
	switch {
	case errors.As(err, &unknown):
		return notAnAgent(ws.rules, unknown.Name, "(check --to); nothing was sent")
	case errors.Is(err, mailbox.ErrInvalid):
		return usageError("%v", err)
	case sent.ID == "":
		if refused := asRefused(err); refused != nil {
			return refused
		}
		return err
	}
	if sent.Queued {
		fmt.Fprintln(io.errOut, runnable("master not running, message queued; it is delivered when `switchboard master` starts", ws.folder.Binary()))
	}
	if refused := asRefused(err); refused != nil {
		return refused
	}
	for _, b := range sent.Blocked {
		fmt.Fprintf(io.errOut, "not delivered to all: BLOCKED %s\n", b)
	}
	return err
}

// asRefused is err with exit 3 when the rules blocked the message, else nil.
func asRefused(err error) error {
	var blocked *desk.BlockedError
	if errors.As(err, &blocked) {
		return refusedError(err)
	}
	return nil
}

// printPosted reports a message just posted: its id on stdout, or nothing
// there when the rules block it (it reaches no one); with --json, its
// status, and the reason when blocked.
func printPosted(io *streams, g *globals, id string, err error) error {
	var blocked *desk.BlockedError
	switch {
	case err == nil && g.json:
		writeCompactJSON(io.out, postStatus{ID: id, Status: "sent"})
	case err == nil:
		fmt.Fprintln(io.out, id)
	case errors.As(err, &blocked) && g.json:
		writeCompactJSON(io.out, postStatus{ID: id, Status: "blocked", Reason: strings.Join(blocked.Reasons, "; ")})
	}
	return err
}

// postStatus is what --json prints of a message posted.
type postStatus struct {
	ID     string `json:"id"`
	Status string `json:"status"` // sent, or blocked
	Reason string `json:"reason,omitempty"`
}

// readBody returns the --content value, or standard input when the value is
// "-" or when none was given and input is piped.
func readBody(io *streams, content string, given bool) (string, error) {
	if given && content != "-" {
		return content, nil
	}
	if !given && !io.stdinIsPipe {
		return "", nil
	}
	data, err := readAllLimited(io.in, mailbox.MaxContentSize)
	if err != nil {
		return "", fmt.Errorf("read content from standard input: %w", err)
	}
	return string(data), nil
}

func readAllLimited(r io.Reader, limit int) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > limit {
		return nil, fmt.Errorf("content is over %d bytes; put large material in a file and name it", limit)
	}
	return data, nil
}
