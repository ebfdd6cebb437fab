package desk

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"switchboard/mailbox"
)

// Errors of Reply, each with what to send instead.
var (
	// ErrNotAnswerable is a notice from switchboard itself.
	ErrNotAnswerable = errors.New("a notice from switchboard cannot be answered")
	// ErrEmptyReply is a reply with neither content nor option.
	ErrEmptyReply = errors.New("a reply needs content, or an option for a request with options")
)

// OptionError is a request with options answered without one (Given ""),
// or with one it does not list.
type OptionError struct {
	Options []string
	Given   string
}

func (e *OptionError) Error() string {
	if e.Given == "" {
		return "this request is answered with one of its options: " + strings.Join(e.Options, ", ")
	}
	return fmt.Sprintf("%q is none of the options of this request: %s", e.Given, strings.Join(e.Options, ", "))
}

// AnsweredError is a message answered already, by the reply Earlier.
type AnsweredError struct{ ID, Earlier string }

func (e *AnsweredError) Error() string {
	return fmt.Sprintf("you have answered message %s already (reply %s)", e.ID, e.Earlier)
}

// ReplyRequest is an answer to a message of the desk's inbox.
type ReplyRequest struct {
	ID       string // the message's id, or a unique prefix of it
	Content  string
	Option   string // for a request with options: one of them
	Priority string // "" is normal
	Title    string // "" is "Re: <title>"
	Again    bool   // answer a message answered before
}

// Reply answers a message of the inbox: to its sender, as a response with
// its correlation id, then marks it read. It refuses a message answered
// before unless Again.
func (d *Desk) Reply(r ReplyRequest) (Sent, error) {
	entry, err := d.store().Find(d.agent, r.ID)
	if err != nil {
		return Sent{}, err
	}
	orig, err := mailbox.Load(entry.Path)
	if err != nil {
		return Sent{}, err
	}
	if orig.From == mailbox.System {
		return Sent{}, fmt.Errorf("message %s: %w", orig.ID, ErrNotAnswerable)
	}
	options := orig.Options()
	if len(options) > 0 && (r.Option == "" || !slices.ContainsFunc(options, func(o string) bool { return strings.EqualFold(o, r.Option) })) {
		return Sent{}, &OptionError{Options: options, Given: r.Option}
	}
	reply := orig.Reply(r.Content, r.Option)
	if strings.TrimSpace(reply.Content) == "" {
		return Sent{}, ErrEmptyReply
	}
	if !r.Again {
		earlier, err := d.store().RepliesTo(d.agent, orig.ID, orig.Timestamp)
		if err != nil {
			return Sent{}, err
		}
		if len(earlier) > 0 {
			return Sent{}, &AnsweredError{ID: orig.ID, Earlier: earlier[0]}
		}
	}
	if r.Priority != "" {
		reply.Priority = r.Priority
	}
	if r.Title != "" {
		reply.Title = r.Title
	}
	sent, err := d.Send(reply)
	if err != nil {
		return sent, err
	}
	if _, err := d.store().MarkRead(d.agent, entry); err != nil {
		return sent, err
	}
	return sent, nil
}
