package master

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"switchboard/internal/safetext"
	"switchboard/lifecycle"
	"switchboard/mailbox"
	"switchboard/master/link"
	"switchboard/rules"
	"switchboard/workspace"
)

// Copies from other hosts are delivered like local ones: vouched for by
// their marks, each written once whatever the times it comes, the inboxes
// synced before the link hears they are done, and the agents' panes told.

// taking is a copy from another host on its way into an inbox.
type taking struct {
	i     int // its place among the copies that arrived together
	to    string
	msg   *mailbox.Message
	mark  mailbox.NoticeMark
	fresh bool // written now, not found there from an earlier delivery
}

// takeFromLink delivers copies that arrived together, and tells the link
// the outcome of each.
func (m *Master) takeFromLink(a link.Arrival) {
	errs := make([]error, len(a.Copies))
	takings := m.admit(a.Copies, errs)
	fail := func(err error, ts []*taking) {
		for _, t := range ts {
			errs[t.i] = err
		}
	}
	marks := make([]mailbox.NoticeMark, len(takings))
	for i, t := range takings {
		marks[i] = t.mark
	}
	if err := m.store.VouchCopies(marks); err != nil {
		m.logf("cannot record copies from other hosts: %v; the hub keeps them", err)
		m.noteFull(err)
		fail(err, takings)
		a.Done <- errs
		return
	}
	// Every inbox a copy is in is synced, also one found there from an
	// earlier delivery whose sync failed: the hub hears only of copies on
	// disk.
	inboxes := make(map[string]bool)
	var in []*taking
	for _, t := range takings {
		fresh, err := m.store.DeliverUnsynced(t.to, t.msg)
		if err != nil {
			m.logf("cannot deliver %s from host %s to %s: %v; the hub keeps it", t.msg.ID, t.msg.Via, t.to, err)
			m.noteFull(err)
			errs[t.i] = err
			continue
		}
		t.fresh = fresh
		inboxes[t.to] = true
		in = append(in, t)
	}
	err := m.store.SyncInboxes(slices.Sorted(maps.Keys(inboxes)))
	if err == nil {
		err = m.store.SyncMarks()
	}
	if err != nil {
		m.logf("cannot sync the inboxes: %v; the hub keeps those copies", err)
		m.noteFull(err)
		fail(err, in)
		a.Done <- errs
		return
	}
	// A cancel is marked before the hub hears the copy is done: a crash
	// in between brings the copy back, and marking again changes nothing.
	for _, t := range in {
		if err := m.cancelFromLink(t.msg, t.to); err != nil {
			errs[t.i] = err
		}
	}
	a.Done <- errs
	for _, t := range in {
		if !t.fresh {
			continue
		}
		m.logf("#%d@%s %s → %s: %s", t.msg.Seq, t.msg.Via, t.msg.From, t.to, safetext.Line(t.msg.Title))
		rec := mailbox.Record{Seq: t.msg.Seq, Time: t.msg.DeliveredAt, Message: t.msg}
		m.panes.Announce(t.to, rec, wantsInterrupt(t.msg) && m.rules.MayInterruptAgent(principal(t.msg), t.to))
	}
}

// admit checks the copies and readies those to deliver; the outcome of
// each of the others is set in errs.
func (m *Master) admit(copies []link.Copy, errs []error) []*taking {
	var out []*taking
	for i, c := range copies {
		msg, answers, err := m.admitOne(c)
		if err != nil {
			errs[i] = err
			continue
		}
		out = append(out, &taking{i: i, to: c.To, msg: msg, mark: mailbox.MarkOf(c.To, msg, answers)})
	}
	return out
}

// admitOne checks a copy: it returns the message to deliver, with the
// request it answers, or the copy's outcome.
func (m *Master) admitOne(c link.Copy) (msg *mailbox.Message, answers string, err error) {
	if c.Refused != nil {
		return nil, "", m.refuseFromLink(c, c.Refused.Error())
	}
	msg, err = m.checkFromLink(c)
	if errors.Is(err, errSenderUnknown) && m.link.MayLearn(c) {
		// A helper another host spawned a moment ago: the rules here learn
		// it once the link has read its claim; again later.
		return nil, "", err
	}
	if err != nil {
		// A copy that is not one a master routed never will be: refused,
		// noted and said.
		return nil, "", m.refuseFromLink(c, err.Error())
	}
	if m.remote(c.To) {
		// Addressed here when this host held the agent; it has moved.
		return nil, "", m.refuseFromLink(c, fmt.Sprintf("%s runs on another host now: the copy came to host %s, which held it when it was sent", c.To, m.link.Host()))
	}
	if answers, err = m.answered(msg); err != nil {
		m.logf("cannot read the log to bind %s's answer: %v; the hub keeps it", msg.From, err)
		return nil, "", err
	}
	msg.Via = c.Host
	return msg, answers, nil
}

// cancelFromLink marks an agent spawned here cancelled when the copy is a
// cancel from another host by one who may interrupt it: its parent's wait
// ends, as for a cancel made here.
func (m *Master) cancelFromLink(msg *mailbox.Message, to string) error {
	c, why := m.cancelFor(principal(msg), msg, to)
	if why != "" {
		return nil
	}
	marked, err := lifecycle.MarkCancelled(m.ws, to, workspace.Cancellation{By: c.By, Reason: c.Reason, At: msg.DeliveredAt})
	if err != nil {
		m.logf("cannot mark %s cancelled: %v; the hub keeps the cancel", to, err)
		return err
	}
	if marked {
		m.logf("%s cancelled by %s, of host %s", to, msg.From, msg.Via)
	}
	return nil
}

// answered is the request of this host's log that a response from another
// host answers: one this master routed to the response's sender. An answer
// is bound to its question where the question was routed, as bindAnswer
// binds one routed here. The person at another host is not this host's
// operator, who may answer any request: they answer only what was routed
// to them, which is nothing (a request for the operator stays on its host).
func (m *Master) answered(msg *mailbox.Message) (string, error) {
	if msg.Type != mailbox.TypeResponse || msg.InReplyTo == "" {
		return "", nil
	}
	req, ok, err := m.log.Routed(msg.InReplyTo)
	if err != nil || !ok {
		return "", err
	}
	if msg.From == mailbox.Operator {
		return "", nil
	}
	if mayAnswer(req, msg.From) {
		return msg.InReplyTo, nil
	}
	return "", nil
}

// principal is who a copy from another host acts as, for the rights the
// rules give: its sender, or for the person at that host, rules.PersonAt.
func principal(msg *mailbox.Message) string {
	if msg.From == mailbox.Operator && msg.Via != "" {
		return rules.PersonAt(msg.Via)
	}
	return msg.From
}

// errSenderUnknown is a copy from an agent this host's rules do not know
// yet: one another host spawned a moment ago.
var errSenderUnknown = errors.New("sender not known to this host's rules yet")

// checkFromLink reads a copy from another host and checks it as the master
// checks a message in an outbox, and as the sender's master routed it: a
// whole message, sent by the agent the hub says, for this recipient,
// numbered and dated by that master, and allowed by the rules (the same on
// every host).
func (m *Master) checkFromLink(c link.Copy) (*mailbox.Message, error) {
	msg, err := mailbox.Parse(c.Body)
	if err != nil {
		return nil, err
	}
	if err := msg.Validate(); err != nil {
		return nil, err
	}
	switch {
	case msg.ID != c.ID:
		return nil, fmt.Errorf("its id is not %s, the one it was sent under", c.ID)
	case msg.From != c.From:
		return nil, fmt.Errorf("it says it is from %s, but was sent as from %s", msg.From, c.From)
	case msg.Seq <= 0 || msg.DeliveredAt.IsZero():
		return nil, errors.New("its sender's master did not number and date it")
	case !slices.Contains(msg.To, c.To) && !slices.Contains(msg.To, mailbox.Broadcast):
		return nil, fmt.Errorf("it is not addressed to %s", c.To)
	case msg.From == mailbox.System:
		return nil, errors.New("it says it is from switchboard, whose notices never cross the hop")
	}
	if !m.rules.Knows(msg.From) {
		return nil, fmt.Errorf("%w: %s", errSenderUnknown, msg.From)
	}
	if decision := m.rules.Decide(msg.From, c.To); !decision.Allowed {
		return nil, fmt.Errorf("the rules do not let %s write to %s", msg.From, c.To)
	}
	return msg, nil
}

// refuseFromLink keeps a note of a copy from another host that this master
// will never take (mailboxes/.hub/refused/), counts it, tells the overseers
// once an hour for each host that sends such copies, and returns the
// refusal that ends the copy on the hub. When the note cannot be written,
// the hub keeps the copy, to be refused again later.
func (m *Master) refuseFromLink(c link.Copy, reason string) error {
	now := m.now().UTC()
	// The names and the reason come from the other host, which may have
	// made them megabytes long: the notice shows them cut, escaped once.
	id, from := safetext.Short(c.ID, noticeNameMax), safetext.Short(c.From, noticeNameMax)
	shown := safetext.Short(reason, noticeReasonMax)
	note := mailbox.RefusedCopy{ID: c.ID, Host: c.Host, From: c.From, To: c.To, Reason: reason, Published: c.Published, Refused: now}
	fresh, err := m.refusedCopies.Keep(note, c.Body)
	if err != nil {
		m.logf("cannot keep the note of a refused copy from host %s: %v; the hub keeps the copy", safetext.Line(c.Host), err)
		m.noteFull(err)
		return err
	}
	if fresh {
		m.tellOfLink(link.Note{
			Key:   "hub-refused/" + c.Host + "/" + now.Format("2006-01-02T15"),
			Title: fmt.Sprintf("REFUSED: a copy from host %s", c.Host),
			Content: fmt.Sprintf(
				"Host %s sent a copy this host's master refused:\n  id %s, as from %s to %s: %s.\n"+
					"It is not delivered, and the hub drops it. Every copy refused is noted, with its reason, in %s; "+
					"`switchboard doctor` counts them by host. You hear of host %s again in an hour at the soonest.\n"+
					"A host whose copies are refused may be running code that is not its own.\n",
				c.Host, id, from, c.To, shown, m.refusedCopies.Dir(), c.Host),
		})
	}
	return link.Refuse(shown)
}

// Bounds of what a notice of a refused copy shows of its names and reason.
const (
	noticeNameMax   = 128
	noticeReasonMax = 512
)
