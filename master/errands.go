package master

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"switchboard/bulletin"
	"switchboard/conversation"
	"switchboard/mailbox"
	"switchboard/master/link/errand"
	"switchboard/workspace"
)

// A command's errand on the hub (errand.Errand) reaches it through this
// master, which alone holds the host's credentials: the loop takes each
// errand from its outbox as the outbox owner's, checks it under the rules,
// and hands it to a goroutine of its own, so that routing never waits on
// the hub; the answer goes beside the agent's sent messages.

// Bounds of the errands.
const (
	// maxErrands bounds the errands under way at once; more wait in their
	// outboxes until one ends.
	maxErrands = 16
	// errandTimeout bounds an errand's trip to the hub; the command waits
	// a little longer.
	errandTimeout = 10 * time.Second
	// answerKeep is how long an answer stays for its command to read.
	answerKeep = time.Minute
)

// errandDesk is what the master keeps of the errands: those under way, and
// the answers it wrote, to remove once read.
type errandDesk struct {
	ctx context.Context // Run's: an errand under way ends with it
	wg  sync.WaitGroup

	mu       sync.Mutex
	busy     map[string]bool // errand files under way, by path
	waiting  bool            // an errand was left for want of room
	answered []answered      // answers written, oldest first
	swept    bool            // the answers an earlier master left are swept
}

type answered struct {
	agent, id string
	at        time.Time
}

// startErrands readies the errands for Run, whose ctx ends them, and says
// to the commands, in a file without the password, whether this workspace
// is a host of a team across machines. It returns what waits for the
// errands under way.
func (m *Master) startErrands(ctx context.Context) (wait func(), err error) {
	m.errands.ctx = ctx
	m.errands.busy = make(map[string]bool)
	if m.link == nil {
		err = m.ws.RemoveHubHost()
	} else {
		err = m.ws.WriteHubHost(workspace.HubHost{Host: m.link.Host(), Team: m.link.Team()})
	}
	return m.errands.wg.Wait, err
}

// take marks an errand file under way, unless it is already, or the
// errands under way are as many as may be.
func (d *errandDesk) take(path string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.busy[path] {
		return false
	}
	if len(d.busy) >= maxErrands {
		d.waiting = true
		return false
	}
	d.busy[path] = true
	return true
}

// done ends an errand, reporting whether one was left for want of room.
func (d *errandDesk) done(path string) (waiting bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.busy, path)
	waiting, d.waiting = d.waiting, false
	return waiting
}

// takeErrands takes the errands found in the agent's outbox. The loop calls
// it: what needs only the rules is decided here, what needs the hub in a
// goroutine of its own.
func (m *Master) takeErrands(agent string, paths []string) {
	for _, path := range paths {
		if !m.errands.take(path) {
			continue
		}
		e, err := errand.In(m.store).Open(agent, path)
		var unsettled *mailbox.Unsettled
		var refused mailbox.Refusal
		switch {
		case errors.Is(err, fs.ErrNotExist):
			m.endErrand(agent, path) // withdrawn by its command
			continue
		case errors.As(err, &unsettled) && !m.stoodStill(path):
			// Written by hand, and perhaps still being written: looked at
			// again once it has stood still for the settle time.
			m.endErrand(agent, path)
			time.AfterFunc(m.opts.Settle, func() { m.work.mark(agent) })
			continue
		case errors.As(err, &unsettled):
			err = mailbox.Refusal(unsettled.Err.Error())
		case err != nil && !errors.As(err, &refused):
			m.logf("cannot read the errand %s yet: %v", path, err)
			m.noteFull(err)
			m.endErrand(agent, path)
			continue
		}
		if err != nil {
			m.answerErrand(agent, path, nil, errand.Answer{Refused: errand.RefusedInvalid, Reason: err.Error()})
			continue
		}
		if refusal, ok := m.checkErrand(agent, e); !ok {
			m.answerErrand(agent, path, e, refusal)
			continue
		}
		m.errands.wg.Go(func() { m.runErrand(agent, path, e) })
	}
}

// stoodStill reports whether the file at path has not changed for the
// settle time.
func (m *Master) stoodStill(path string) bool {
	fi, err := os.Lstat(path)
	return err != nil || time.Since(fi.ModTime()) >= m.opts.Settle
}

// checkErrand decides what the rules decide of an errand: who may change
// the board and force a lock, and what the bulletin can show. ok is false,
// with the answer that refuses it, for an errand not to do.
func (m *Master) checkErrand(agent string, e *errand.Errand) (refusal errand.Answer, ok bool) {
	refuse := func(why errand.Refusal, format string, args ...any) (errand.Answer, bool) {
		return errand.Answer{Refused: why, Reason: fmt.Sprintf(format, args...)}, false
	}
	switch {
	case m.link == nil:
		return refuse(errand.RefusedNoHub, "this workspace's master joins no hub")
	case m.remote(agent):
		// Its own host's master takes its errands; a file here was put by
		// someone else.
		return refuse(errand.RefusedInvalid, "%s runs on another host: its errands go to that host's master", agent)
	case e.Kind == errand.ChangeBoard && !m.rules.MayChangeBulletin(agent):
		return refuse(errand.RefusedRight, "%s may not change the team's status, phase or warnings: only oversight agents (%s) and the operator may", agent, m.rules.OversightNames())
	case e.Kind == errand.ForceUnlock && agent != mailbox.Operator:
		return refuse(errand.RefusedRight, "only the operator may force a lock, and %s is not the operator", agent)
	case e.Kind == errand.SetState && len(e.Value) > bulletin.MaxStateValue:
		return refuse(errand.RefusedInvalid, "the value of %s is %d bytes, over the bound of %d bytes a value: keep large data in a file, and its path here", e.Key, len(e.Value), bulletin.MaxStateValue)
	}
	if e.Status != "" {
		if err := bulletin.CheckStatus(e.Status); err != nil {
			return refuse(errand.RefusedInvalid, "%v", err)
		}
	}
	return errand.Answer{}, true
}

// runErrand performs an errand on the hub and answers it.
func (m *Master) runErrand(agent, path string, e *errand.Errand) {
	ctx, cancel := context.WithTimeout(m.errands.ctx, errandTimeout)
	defer cancel()
	m.answerErrand(agent, path, e, m.link.Do(ctx, agent, e, conversation.Of(m.store).HasExited))
}

// answerErrand writes the answer to the errand at path, then removes the
// errand, and says in the log what became of it (e is nil for one refused
// unread). An answer that cannot be written leaves the errand for a later
// pass.
func (m *Master) answerErrand(agent, path string, e *errand.Errand, a errand.Answer) {
	defer m.endErrand(agent, path)
	id := mailbox.ErrandID(path)
	if err := errand.In(m.store).Reply(agent, id, a); err != nil {
		m.logf("cannot answer the errand %s of %s: %v; will try again", id, agent, err)
		m.noteFull(err)
		return
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		m.logf("answered the errand %s of %s, but cannot remove it: %v", id, agent, err)
	}
	m.errands.mu.Lock()
	m.errands.answered = append(m.errands.answered, answered{agent: agent, id: id, at: time.Now()})
	m.errands.mu.Unlock()
	what := "an errand"
	if e != nil {
		what = string(e.Kind)
		if e.Resource != "" {
			what += fmt.Sprintf(" %q", e.Resource)
		} else if e.Key != "" {
			what += fmt.Sprintf(" %q", e.Key)
		}
	}
	if a.Refused == "" {
		m.logf("%s of %s done on the hub", what, agent)
	} else {
		m.logf("%s of %s refused (%s): %s", what, agent, a.Refused, a.Reason)
	}
}

// endErrand ends an errand, and has the outbox looked at again when one
// waited for its turn.
func (m *Master) endErrand(agent, path string) {
	if m.errands.done(path) {
		m.work.markAll() // which outbox waited is not kept: every one is scanned
	}
}

// sweepAnswers removes the answers that stayed their time; the first time,
// also those an earlier master left. The reconcile tick calls it.
func (m *Master) sweepAnswers() {
	cutoff := time.Now().Add(-answerKeep)
	m.errands.mu.Lock()
	first := !m.errands.swept
	m.errands.swept = true
	n := 0
	for n < len(m.errands.answered) && m.errands.answered[n].at.Before(cutoff) {
		n++
	}
	old := m.errands.answered[:n]
	m.errands.answered = m.errands.answered[n:]
	m.errands.mu.Unlock()
	for _, a := range old {
		errand.In(m.store).RemoveAnswer(a.agent, a.id)
	}
	if first && m.link != nil {
		for agent := range m.watched {
			errand.In(m.store).SweepAnswers(agent, cutoff)
		}
	}
}
