package master

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"switchboard/agents"
	"switchboard/hub"
	"switchboard/internal/safetext"
	"switchboard/mailbox"
	"switchboard/rules"
)

// receive takes this host's agents' mail from the hub and hands the copies
// to the loop, as they come, until ctx is done.
func (h *hubLink) receive(ctx context.Context, conn *hub.Conn) {
	for ctx.Err() == nil {
		err := conn.ReceiveBatch(ctx, func(ctx context.Context, ds []hub.Delivered) []error {
			a := hubCopy{copies: ds, done: make(chan []error, 1)}
			select {
			case h.arrivals <- a:
			case <-ctx.Done():
				return nil // none stored: all come again
			}
			select {
			case errs := <-a.done:
				return errs
			case <-ctx.Done():
				return nil
			}
		})
		if ctx.Err() != nil {
			return
		}
		h.logf("taking mail from the hub stopped: %v; trying again", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(hubRetry):
		}
	}
}

// takeFromHub delivers copies the hub has for agents of this host, like
// local ones: vouched for by their marks, each written once whatever the
// times it comes, the inboxes synced before the hub hears they are done,
// and the agents' panes told.
func (m *Master) takeFromHub(a hubCopy) {
	errs := make([]error, len(a.copies))
	var msgs []*mailbox.Message
	var tos []string
	var marks []mailbox.NoticeMark
	var index []int // of each message, in a.copies
	for i, d := range a.copies {
		if d.Refused != nil {
			errs[i] = m.refuseFromHub(d, d.Refused.Error())
			continue
		}
		msg, err := m.checkFromHub(d)
		if errors.Is(err, errSenderUnknown) && m.hub.mayLearn(d) {
			// A helper another host spawned a moment ago: the rules here
			// learn it once this host has read the claim; again later.
			errs[i] = err
			continue
		}
		if err != nil {
			// A copy that is not one a master routed never will be:
			// refused, noted and said.
			errs[i] = m.refuseFromHub(d, err.Error())
			continue
		}
		if m.hub.remote(d.To) {
			errs[i] = fmt.Errorf("%s does not run on this host", d.To)
			continue
		}
		answers, err := m.answered(msg)
		if err != nil {
			m.logf("cannot read the log to bind %s's answer: %v; the hub keeps it", msg.From, err)
			errs[i] = err
			continue
		}
		msg.Via = d.Host
		msgs, tos, index = append(msgs, msg), append(tos, d.To), append(index, i)
		marks = append(marks, mailbox.MarkOf(d.To, msg, answers))
	}
	fail := func(err error, which []int) {
		for _, j := range which {
			errs[index[j]] = err
		}
	}
	all := make([]int, len(msgs))
	for j := range all {
		all[j] = j
	}
	if err := m.store.VouchCopies(marks); err != nil {
		m.logf("cannot record copies from the hub: %v; the hub keeps them", err)
		m.noteFull(err)
		fail(err, all)
		a.done <- errs
		return
	}
	// Every inbox a copy is in is synced, also one found there from an
	// earlier delivery whose sync failed: the hub hears only of copies on
	// disk.
	inboxes := make(map[string]bool)
	var in, fresh []int
	for j, msg := range msgs {
		now, err := m.store.DeliverUnsynced(tos[j], msg)
		if err != nil {
			m.logf("cannot deliver %s from host %s to %s: %v; the hub keeps it", msg.ID, msg.Via, tos[j], err)
			m.noteFull(err)
			fail(err, []int{j})
			continue
		}
		inboxes[tos[j]] = true
		in = append(in, j)
		if now {
			fresh = append(fresh, j)
		}
	}
	err := m.store.SyncInboxes(slices.Sorted(maps.Keys(inboxes)))
	if err == nil {
		err = m.store.SyncMarks()
	}
	if err != nil {
		m.logf("cannot sync the inboxes: %v; the hub keeps those copies", err)
		m.noteFull(err)
		fail(err, in)
		a.done <- errs
		return
	}
	// A cancel is marked before the hub hears the copy is done: a crash
	// in between brings the copy back, and marking again changes nothing.
	for _, j := range in {
		if err := m.cancelFromHub(msgs[j], tos[j]); err != nil {
			fail(err, []int{j})
		}
	}
	a.done <- errs
	for _, j := range fresh {
		msg, to := msgs[j], tos[j]
		m.logf("#%d@%s %s → %s: %s", msg.Seq, msg.Via, msg.From, to, safetext.Line(msg.Title))
		rec := mailbox.Record{Seq: msg.Seq, Time: msg.DeliveredAt, Message: msg}
		m.panes.Announce(to, rec, wantsInterrupt(msg) && m.rules.MayInterruptAgent(principal(msg), to))
	}
}

// cancelFromHub marks an agent spawned here cancelled when the copy is a
// cancel from another host by one who may interrupt it: its parent's wait
// ends, as for a cancel made here.
func (m *Master) cancelFromHub(msg *mailbox.Message, to string) error {
	c, ok := agents.CancelledBy(msg)
	if !ok || !m.rules.MayInterruptAgent(principal(msg), to) {
		return nil
	}
	marked, err := agents.MarkCancelled(m.ws, to, c)
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

// checkFromHub reads a copy from the hub and checks it as the master checks
// a message in an outbox, and as the sender's master routed it: a whole
// message, sent by the agent the hub says, for this recipient, numbered and
// dated by that master, and allowed by the rules (the same on every host).
func (m *Master) checkFromHub(d hub.Delivered) (*mailbox.Message, error) {
	msg, err := mailbox.Parse(d.Body)
	if err != nil {
		return nil, err
	}
	if err := msg.Validate(); err != nil {
		return nil, err
	}
	switch {
	case msg.ID != d.ID:
		return nil, fmt.Errorf("its id is not %s, the one it was sent under", d.ID)
	case msg.From != d.From:
		return nil, fmt.Errorf("it says it is from %s, but was sent as from %s", msg.From, d.From)
	case msg.Seq <= 0 || msg.DeliveredAt.IsZero():
		return nil, errors.New("its sender's master did not number and date it")
	case !slices.Contains(msg.To, d.To) && !slices.Contains(msg.To, mailbox.Broadcast):
		return nil, fmt.Errorf("it is not addressed to %s", d.To)
	case msg.From == mailbox.System:
		return nil, errors.New("it says it is from switchboard, whose notices never cross the hop")
	}
	if !m.rules.Knows(msg.From) {
		return nil, fmt.Errorf("%w: %s", errSenderUnknown, msg.From)
	}
	if decision := m.rules.Decide(msg.From, d.To); !decision.Allowed {
		return nil, fmt.Errorf("the rules do not let %s write to %s", msg.From, d.To)
	}
	return msg, nil
}
