package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"switchboard/mailbox"
)

// post checks a message the caller composed and drops it in the caller's
// outbox. A message the rules block is posted all the same, so that the
// attempt is in the audit log for the overseers and the sender gets the
// BLOCKED notice; post then fails with exit 3 and the reason. A broadcast
// only fails when it reaches no one.
func post(io *streams, ws *caller, msg *mailbox.Message) error {
	msg.From = ws.agent
	msg.Normalize(time.Now())
	if err := msg.Validate(); err != nil {
		return usageError("%v", err)
	}
	route := ws.rules.Route(ws.agent, msg.To)
	if len(route.Unknown) > 0 {
		return notAnAgent(ws.rules, route.Unknown[0], "(check --to); nothing was sent")
	}
	var blocked []string
	for _, b := range route.Blocked {
		blocked = append(blocked, fmt.Sprintf("%s → %s: %s", ws.agent, b.To, b.Reason))
	}
	if _, err := ws.store.Post(ws.agent, msg); err != nil {
		return fmt.Errorf("queue message: %w", err)
	}
	if _, running := ws.masterRunning(); !running {
		fmt.Fprintln(io.errOut, runnable("master not running, message queued; it is delivered when `switchboard master` starts", ws.folder.Binary()))
	}
	if len(blocked) == 0 {
		return nil
	}
	if msg.IsBroadcast() && len(route.Delivered) > 0 {
		for _, b := range blocked {
			fmt.Fprintf(io.errOut, "not delivered to all: BLOCKED %s\n", b)
		}
		return nil
	}
	return refusedError(&blockedError{reasons: blocked})
}

// blockedError is a message the rules keep from every recipient: it went
// out (the master logs the attempt) but reaches no one.
type blockedError struct{ reasons []string }

func (e *blockedError) Error() string {
	return fmt.Sprintf("BLOCKED by the rules: %s (the attempt is logged)", strings.Join(e.reasons, "; "))
}

// printPosted reports a message just posted: its id on stdout, or nothing
// there when the rules block it (it reaches no one); with --json, its
// status, and the reason when blocked.
func printPosted(io *streams, g *globals, id string, err error) error {
	var blocked *blockedError
	switch {
	case err == nil && g.json:
		writeCompactJSON(io.out, postStatus{ID: id, Status: "sent"})
	case err == nil:
		fmt.Fprintln(io.out, id)
	case errors.As(err, &blocked) && g.json:
		writeCompactJSON(io.out, postStatus{ID: id, Status: "blocked", Reason: strings.Join(blocked.reasons, "; ")})
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
