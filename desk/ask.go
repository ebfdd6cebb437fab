package desk

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"switchboard/mailbox"
)

// SafeAnswer is the answer of a question nobody answered in time, or
// answered outside its options: whoever asked takes it as a no.
const SafeAnswer = "deny"

// AskRequest is a question to another agent, waited for.
type AskRequest struct {
	To    string // "" is the agent's parent, for a spawned agent
	Title string // "" is the forwarded request's, when one is
	// Forward is the id of a request in the agent's inbox to pass up:
	// the question is its own (title, options and content, saying whose it
	// is), asked of To (the parent, else the operator), and the request is
	// answered with what comes back, as its recipient would have.
	Forward  string
	Content  string
	Options  []string // the answers accepted; none for any answer
	Priority string   // "" is normal
	Timeout  time.Duration

	// passesUp is the permission prompt Forward names, when the master
	// vouched for it as one: the question passed up asks it too.
	passesUp *mailbox.Permission
}

// Answer is what came of a question.
type Answer struct {
	Request  string `json:"request"`
	To       string `json:"to"`
	Answer   string `json:"answer"`
	From     string `json:"from,omitempty"`
	Reply    string `json:"reply,omitempty"`
	TimedOut bool   `json:"timed_out,omitempty"`
	Refused  string `json:"refused,omitempty"`
}

// Errors of Ask.
var (
	// ErrNoOneToAsk is a question without a recipient from an agent that
	// has no parent.
	ErrNoOneToAsk = errors.New("no one to ask: name the agent (only a spawned agent has a parent to ask by default)")
	// ErrNoAnswer is a question that got no answer in time: the answer is
	// SafeAnswer.
	ErrNoAnswer = errors.New("no answer")
	// ErrNoQuestion is a question without a title.
	ErrNoQuestion = errors.New("a question has a title: the question, in one line")
)

// RefusedAnswerError is an answer outside the question's options: the
// answer taken is SafeAnswer.
type RefusedAnswerError struct {
	From, Answer string
	Options      []string
}

func (e *RefusedAnswerError) Error() string {
	return fmt.Sprintf("%s answered %q, which is none of %s: taking the safe answer, %s", e.From, e.Answer, strings.Join(e.Options, ", "), SafeAnswer)
}

// Parent is the agent that spawned the desk's agent; "" for one of the
// rules.
func (d *Desk) Parent() string {
	if d.rules == nil {
		return ""
	}
	parent, _ := d.rules.Parent(d.agent)
	return parent
}

// Ask sends a request and waits, up to its timeout (none waits for as long
// as ctx lasts), for its answer, which it marks read: a response to the
// request from the agent asked (or the operator), which the master found
// answers a request delivered to it (mailbox.WaitForAnswer). Other mail stays unread. started, when not nil, is told of the
// request once it is sent. Without an answer in time the Answer is
// SafeAnswer and the error wraps ErrNoAnswer; an answer outside the options
// is SafeAnswer with a *RefusedAnswerError; a wait cut short by ctx is
// SafeAnswer with ctx's error.
func (d *Desk) Ask(ctx context.Context, r AskRequest, started func(Answer)) (Answer, error) {
	var fwd *forwarded
	if r.Forward != "" {
		var err error
		if fwd, err = d.forward(&r); err != nil {
			return Answer{}, err
		}
	}
	if r.Title == "" {
		return Answer{}, ErrNoQuestion
	}
	if r.To == "" {
		if r.To = d.Parent(); r.To == "" {
			return Answer{}, ErrNoOneToAsk
		}
	}
	res, err := d.ask(ctx, r, started)
	var refused *RefusedAnswerError
	if fwd != nil && res.Request != "" && (err == nil || errors.As(err, &refused) || res.TimedOut) {
		// A wait stopped by ctx decides nothing for the agent below: it
		// keeps waiting for an answer, or its own deny.
		if ferr := d.answerForwarded(fwd, res.Answer); ferr != nil {
			return res, ferr
		}
	}
	return res, err
}

// forwarded is a request passed up, and where it is in the inbox.
type forwarded struct {
	msg   *mailbox.Message
	entry mailbox.Entry
}

// forward reads the request r passes up and makes r its question.
func (d *Desk) forward(r *AskRequest) (*forwarded, error) {
	entry, err := d.store().Find(d.agent, r.Forward)
	if err != nil {
		return nil, err
	}
	msg, err := mailbox.Load(entry.Path)
	if err != nil {
		return nil, err
	}
	if r.Title == "" {
		r.Title = msg.Title
	}
	if r.Options == nil {
		r.Options = msg.Options()
	}
	if p, ok := vouchedPrompt(d.store(), d.agent, entry, msg); ok {
		p.Forwards = msg.ID
		r.passesUp = &p
	}
	note := r.Content // the forwarder's own word, after the request's
	r.Content = fmt.Sprintf("%s asks, through %s: %s", msg.From, d.agent, msg.Title)
	if msg.Content != "" {
		r.Content += "\n\n" + msg.Content
	}
	if note != "" {
		r.Content += "\n\n" + d.agent + " adds: " + note
	}
	if r.To == "" && d.Parent() == "" {
		r.To = mailbox.Operator
	}
	return &forwarded{msg: msg, entry: entry}, nil
}

// vouchedPrompt is the permission prompt msg, in agent's inbox at entry,
// asks, when the master vouched for it as one.
func vouchedPrompt(store *mailbox.Store, agent string, entry mailbox.Entry, msg *mailbox.Message) (mailbox.Permission, bool) {
	v := store.NewVoucher()
	defer v.Close()
	rec, ok := v.Record(agent, entry.Name, msg)
	if !ok {
		return mailbox.Permission{}, false
	}
	return rec.PermissionPrompt()
}

// answerForwarded answers the request passed up with what came back, and
// marks it read.
func (d *Desk) answerForwarded(f *forwarded, answer string) error {
	option := ""
	if len(f.msg.Options()) > 0 {
		option = answer
	}
	if _, err := d.Send(f.msg.Reply(answer, option)); err != nil {
		return err
	}
	_, err := d.store().MarkRead(d.agent, f.entry)
	return err
}

// ask sends r and waits for its answer.
func (d *Desk) ask(ctx context.Context, r AskRequest, started func(Answer)) (Answer, error) {
	msg := &mailbox.Message{
		To: []string{r.To}, Title: r.Title, Priority: r.Priority, Type: mailbox.TypeRequest,
		RequiresResponse: true, CorrelationID: uuid.NewString(),
	}
	msg.Normalize(time.Now())
	content := r.Content
	if r.passesUp != nil && slices.Equal(r.Options, mailbox.PermissionOptions()) {
		msg.SetPermission(*r.passesUp)
	} else if len(r.Options) > 0 {
		msg.SetOptions(r.Options)
	}
	if len(r.Options) > 0 {
		content = strings.TrimSpace(content + fmt.Sprintf("\n\nAnswer with one of: %s — switchboard reply %s --option %s",
			strings.Join(r.Options, ", "), msg.ID, r.Options[0]))
	}
	msg.Content = content
	if _, err := d.Send(msg); err != nil {
		return Answer{}, err
	}
	res := Answer{Request: msg.ID, To: r.To, Answer: SafeAnswer}
	if started != nil {
		started(res)
	}
	if r.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.Timeout)
		defer cancel()
	}
	entry, reply, err := d.store().WaitForAnswer(ctx, d.agent, msg.ID, r.To)
	switch {
	case errors.Is(err, context.DeadlineExceeded) && r.Timeout > 0:
		res.TimedOut = true
		return res, fmt.Errorf("%w from %s within %s: taking the safe answer, %s", ErrNoAnswer, r.To, r.Timeout, SafeAnswer)
	case err != nil:
		return res, fmt.Errorf("stopped waiting for %s (%w): taking the safe answer, %s", r.To, err, SafeAnswer)
	}
	if _, err := d.store().MarkRead(d.agent, entry); err != nil {
		return res, err
	}
	res.From, res.Reply = reply.From, reply.ID
	answer := reply.Answer()
	if len(r.Options) == 0 {
		res.Answer = answer
		return res, nil
	}
	if i := slices.IndexFunc(r.Options, func(o string) bool { return strings.EqualFold(o, answer) }); i >= 0 {
		res.Answer = r.Options[i]
		return res, nil
	}
	res.Refused = answer
	return res, &RefusedAnswerError{From: reply.From, Answer: answer, Options: r.Options}
}
