package master

import (
	"fmt"
	"slices"
	"strings"

	"switchboard/internal/safetext"
	"switchboard/mailbox"
)

// An answer is bound to its question. A response counts as the answer to a
// request (an approval of a permission prompt, the reply an ask waits for)
// only when it names the request (in_reply_to) and the request was
// delivered to its sender; the waiting side checks, in turn, that the
// sender is the one it asked. The master decides the first part when it
// routes the response, and writes the verdict into its record
// (Record.Answers), which vouches for the copy in the asker's inbox. A
// response that names a request its sender never received is delivered as
// ordinary mail, if the rules let it through, and the overseers are told.

// bindAnswer records in rec which request the response msg from agent
// answers, if any, and notes a response to a request agent never received.
// It returns that request's record, for the report, when there was one;
// an error when the log could not be read.
func (m *Master) bindAnswer(agent string, msg *mailbox.Message, rec *mailbox.Record) (unreceived *mailbox.Record, err error) {
	if msg.Type != mailbox.TypeResponse || msg.InReplyTo == "" {
		return nil, nil
	}
	req, ok, err := m.log.Routed(msg.InReplyTo)
	if err != nil || !ok {
		return nil, err // no message of the log: nothing to answer, nothing claimed
	}
	if mayAnswer(req, agent) {
		rec.Answers = msg.InReplyTo
		return nil, nil
	}
	rec.Notes = append(rec.Notes, fmt.Sprintf("not an answer: %s never received #%d, the message it replies to", agent, req.Seq))
	return &req, nil
}

// mayAnswer reports whether agent may answer the request req routed: it
// was delivered to agent, or agent is the operator, the person over the
// whole team, who may answer any request as they may set any approval.
func mayAnswer(req mailbox.Record, agent string) bool {
	return agent == mailbox.Operator || slices.Contains(req.Delivered, agent)
}

// reportUnreceivedAnswer tells the overseers that agent sent a response to
// a request it never received: a sibling answering a helper's permission
// prompt, or a helper answering its own.
func (m *Master) reportUnreceivedAnswer(msg *mailbox.Message, rec mailbox.Record, req mailbox.Record) {
	title := fmt.Sprintf("NOT AN ANSWER: %s replied to #%d, which it never received", msg.From, req.Seq)
	content := fmt.Sprintf("%s sent #%d, a response to #%d (from %s to %s), a message that was never delivered to it.\n"+
		"It was not taken as an answer: no permission prompt or question is decided by it. It was routed as ordinary mail.\n"+
		"Its title: %q.\nIf no one meant it, %s may be trying to approve what it may not: `switchboard show %d` has the whole of it.\n",
		msg.From, rec.Seq, req.Seq, req.Message.From, strings.Join(req.Delivered, ", "), safetext.Line(msg.Title), msg.From, rec.Seq)
	told := m.tellOverseers("unreceived/"+msg.ID, title, content, rec.Time)
	if len(told) > 0 {
		m.logf("%s; told %s", title, strings.Join(told, ", "))
	}
}
