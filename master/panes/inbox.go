package panes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"switchboard/conversation"
	"switchboard/hooks"
	"switchboard/internal/clientinbox"
	"switchboard/internal/watch"
)

// An agent whose client keeps an inbox of its own (Claude Code 2.1.224 and
// later) is handed its notices through it, not typed at: the client puts
// them in its model's next request, between two tool calls of a turn that
// runs, or as a new turn when it is idle. A notice handed over is claimed
// as shown first, so that no hook shows it again, and counts as delivered
// once the client's transcript holds it; one that does not reach it is
// given back to the hooks and typed as before.

// inboxTake is how long a client gets to take a message into its queue
// (it writes so in its transcript at once, busy or not); inboxConfirm how
// long one that is not working gets to put a message it took into its
// conversation; a working one puts it at its next tool boundary, which is
// waited for up to inboxPatience.
const (
	inboxTake     = 15 * time.Second
	inboxConfirm  = 3 * time.Second
	inboxPatience = 30 * time.Minute
)

// handOver sends the notices to the agent's client through its inbox, and
// returns those it could not send, to be typed; what was sent is confirmed
// in the background, and given back to the pane when it does not arrive.
// Those it did not send this time (more than one hook lists, or read
// meanwhile) wait for the next pass.
func (p *Panes) handOver(ctx context.Context, agent, pane string, items []announcement) (rest []announcement) {
	rec, ok, err := clientinbox.ReadRecord(p.book.ClientRecordPath(agent))
	if err != nil || !ok {
		return items
	}
	session, err := rec.Session()
	if err != nil {
		// Tried again as soon as a process of the client runs it.
		p.inboxFailed(agent, "", "its session is not running", items)
		return items
	}
	if !session.InPane(pane) {
		p.inboxFailed(agent, inboxKey(session), fmt.Sprintf("the session recorded for it runs in %q, not in its pane %s", session.Tmux, pane), items)
		return items
	}
	key := inboxKey(session)
	if session.Socket == "" {
		p.inboxFailed(agent, key, "its client keeps no inbox", items)
		return items
	}
	taken, err := p.book.ClaimShown(agent, files(items), "")
	if err != nil {
		p.inboxFailed(agent, key, "cannot record what it was shown: "+err.Error(), items)
		return items
	}
	items = dropFiles(items, taken) // its hooks showed them already
	text, listed := hooks.Present(p.store, agent, files(items))
	later := slices.DeleteFunc(slices.Clone(items), func(a announcement) bool { return slices.Contains(listed, a.file) })
	items = dropFiles(items, files(later))
	if len(later) > 0 {
		p.giveBack(agent, later)
		p.requeue(agent, later)
	}
	if len(items) == 0 {
		return nil
	}
	transcript := clientinbox.Transcript{Path: rec.Transcript}
	from, sent := transcript.End(), time.Now()
	if err := session.Send(ctx, senderOf(items), text); err != nil {
		p.giveBack(agent, items)
		p.inboxFailed(agent, key, err.Error(), items)
		return items
	}
	p.typingWG.Add(1)
	go func() {
		defer p.typingWG.Done()
		p.confirmHandOver(ctx, agent, session, transcript, from, sent, items)
	}()
	return nil
}

// confirmHandOver follows the client's transcript until it holds the
// notices sent: at once when the client is idle, at its next tool boundary
// when it works. Those it did not take into its queue in time, or that
// did not reach the conversation once it stopped working, are given back
// to the hooks and to the pane, where they are typed once the agent is
// idle; those that arrived are recorded in the log's record.
func (p *Panes) confirmHandOver(ctx context.Context, agent string, session clientinbox.Session, transcript clientinbox.Transcript, from int64, sent time.Time, items []announcement) {
	marks := make([]string, len(items))
	for i, a := range items {
		marks[i] = a.id
	}
	var seen clientinbox.Progress
	settled := sent // the last moment the client was seen working, or the send
	ended := false
	watch.Until(ctx, 50*time.Millisecond, inboxPatience, func() bool {
		if err := transcript.Follow(&from, marks, &seen); err != nil {
			p.logf("cannot read the transcript of %s: %v", agent, err)
		}
		if len(seen.Held) == len(marks) {
			return true
		}
		now, err := session.Current()
		if errors.Is(err, clientinbox.ErrNoSession) {
			ended = true
			return true
		}
		if len(seen.Queued) < len(marks) {
			// A client slow to take it (a loaded machine) may take it
			// still: given back, it would be typed, and taken twice.
			return time.Since(sent) > p.inboxTake
		}
		if err == nil && (now.Status == clientinbox.StatusBusy || now.Status == clientinbox.StatusWaiting) {
			settled = time.Now()
		}
		return time.Since(settled) > p.inboxWait
	})
	if ctx.Err() != nil {
		return // the master stops: the claim stands, as for a line typed
	}
	var arrived, lost []announcement
	for _, a := range items {
		if seen.Held[a.id] {
			arrived = append(arrived, a)
		} else {
			lost = append(lost, a)
		}
	}
	if len(arrived) > 0 {
		p.logf("%s notice handed to %s through its client's inbox (in its conversation %d ms after the send)",
			strings.Join(announcedSeqs(arrived), " "), agent, time.Since(sent).Milliseconds())
		p.record(agent, conversation.ChannelInbox, arrived)
	}
	if len(lost) == 0 {
		return
	}
	why := "the client did not take it"
	switch {
	case ended:
		why = "its session ended"
	case len(seen.Queued) == len(marks):
		why = "the client took it, and it did not reach its conversation"
	}
	p.giveBack(agent, lost)
	p.inboxFailed(agent, inboxKey(session), why, lost)
	p.requeue(agent, lost)
}

// requeue puts announcements back in front of the agent's queue.
func (p *Panes) requeue(agent string, items []announcement) {
	p.mu.Lock()
	v := p.viewOf(agent)
	v.pending = append(slices.Clone(items), v.pending...)
	p.mu.Unlock()
	p.Wake()
}

// giveBack takes back the claim on notices that did not arrive: the hooks
// show them, and the pane announces them again.
func (p *Panes) giveBack(agent string, items []announcement) {
	if err := p.book.ForgetShown(agent, files(items)); err != nil {
		p.logf("cannot record what %s was shown: %v", agent, err)
	}
}

// inboxRetry is how long the notices of an agent whose inbox did not take
// one are typed, before its inbox is tried again (a client that registers
// its session a moment after its start-up hook ran, say).
const inboxRetry = 10 * time.Second

// inboxKey names the inbox of one process of a client running a session:
// a client started again on the same conversation keeps its session id,
// and has an inbox of its own.
func inboxKey(s clientinbox.Session) string {
	return s.SessionID + "/" + strconv.Itoa(s.PID)
}

// inboxFailed notes that the inbox named key did not take notices: for a
// while, or until another process of the client runs a session, the
// agent's notices are typed. An empty key is no inbox at all.
func (p *Panes) inboxFailed(agent, key, why string, items []announcement) {
	p.mu.Lock()
	v := p.viewOf(agent)
	said := v.inboxDown == key && v.inboxWhy == why
	v.inboxDown, v.inboxWhy, v.inboxRetryAt, v.inbox = key, why, time.Now().Add(inboxRetry), false
	p.mu.Unlock()
	if !said { // an inbox that fails each retry the same way is said once
		p.logf("%s notice for %s not handed through its client's inbox (%s): typed instead when it is idle", strings.Join(announcedSeqs(items), " "), agent, why)
	}
}

// inboxUsable reports whether the agent's notices go to the inbox named
// key: one that runs, and not one that failed a moment ago.
func (v *view) inboxUsable(key string, now time.Time) bool {
	return key != "" && (key != v.inboxDown || now.After(v.inboxRetryAt))
}

// senderOf is the one agent the notices come from, whom the client tells
// its model it may answer (its answer comes back through the agent's
// PreToolUse hook, as a switchboard message); "" when they come from
// several.
func senderOf(items []announcement) string {
	from := items[0].from
	for _, a := range items[1:] {
		if a.from != from {
			return ""
		}
	}
	return from
}

// dropFiles is items without those whose files are named.
func dropFiles(items []announcement, names []string) []announcement {
	return slices.DeleteFunc(slices.Clone(items), func(a announcement) bool { return slices.Contains(names, a.file) })
}
