package desk

import (
	"errors"
	"fmt"
	"time"

	"switchboard/internal/safetext"
	"switchboard/master/link/errand"
)

// In a team across machines the locks, the shared state and the board are
// the hub's, and only the host's master holds its credentials: the desk
// asks the master (an errand, see errand.Errand) and waits for its answer.
// That needs no more than an agent in a container is given: its outbox to
// write, its sent/ folder to read, and the master's lock to see it run.

// Errors of the errands.
var (
	// ErrHubAway is a lock or a shared value that could not be taken,
	// released or set on the hub of a team across machines: without it,
	// another host could take the same lock, or would not see the value.
	ErrHubAway = errors.New("the hub is out of reach")
	// ErrNoMaster is an errand in a workspace of a team across machines
	// whose master does not run: nothing was changed.
	ErrNoMaster = errors.New("no master runs in this workspace")
	// ErrMasterSilent is an errand the master did not answer in time.
	ErrMasterSilent = errors.New("the master did not answer the request")
)

// errandWait bounds the wait for the master's answer: its own trip to the
// hub is bounded by 10 s.
const errandWait = 20 * time.Second

// The desk looks for the master's answer at once, then less and less
// often, every answerLookMost at most: a master on this machine answers in a
// millisecond or two, through a hub across a network in a round trip or
// two. (A poll, not a watch of the folder: closing an inotify instance
// waits for the kernel's grace period, several milliseconds, which would be
// most of an errand's time.)
const (
	answerLookFirst = time.Millisecond
	answerLookMost  = 25 * time.Millisecond
)

// onHub asks the workspace's master to do e on the team's hub, and waits
// for its answer. joined is false, and nothing is asked, when the master
// joins no hub. A refusal is an error (*RightError for a right the rules do
// not give, ErrHubAway wrapped for a hub out of reach), but for a lock held
// by another, which the answer says (errand.RefusedHeld), for the caller
// to put in its words.
func (d *Desk) onHub(e errand.Errand) (a errand.Answer, joined bool, err error) {
	host, joined, err := d.ws.ReadHubHost()
	if err != nil || !joined {
		return a, false, err
	}
	if _, running := d.ws.MasterRunning(); !running {
		return a, true, fmt.Errorf("%w: this is host %s of a team across machines, whose locks, shared state and board change on the hub through this host's master; nothing was changed", ErrNoMaster, host.Host)
	}
	id, err := d.errands().Post(d.agent, &e)
	if err != nil {
		return a, true, err
	}
	deadline := time.NewTimer(errandWait)
	defer deadline.Stop()
	look := time.NewTimer(answerLookFirst)
	defer look.Stop()
	for wait := answerLookFirst; ; wait = min(2*wait, answerLookMost) {
		if a, ok, err := d.errands().ReadAnswer(d.agent, id); ok || err != nil {
			return answered(a, err)
		}
		if _, running := d.ws.MasterRunning(); !running {
			return d.unanswered(id,
				fmt.Errorf("%w: it stopped before it took the request; nothing was changed", ErrNoMaster),
				fmt.Errorf("%w: it stopped while it did the request, which may be done or not; look at the bulletin", ErrNoMaster))
		}
		look.Reset(wait)
		select {
		case <-deadline.C:
			return d.unanswered(id,
				fmt.Errorf("%w within %s: it did not take it; nothing was changed", ErrMasterSilent, errandWait),
				fmt.Errorf("%w within %s: it took it, and it may be done or not; look at the bulletin", ErrMasterSilent, errandWait))
		case <-look.C:
		}
	}
}

// unanswered takes back an errand the master left unanswered and returns
// untaken when it was still there; taken when the master had taken it and
// has written no answer since.
func (d *Desk) unanswered(id string, untaken, taken error) (errand.Answer, bool, error) {
	if d.errands().Withdraw(d.agent, id) {
		return errand.Answer{}, true, untaken
	}
	if a, ok, err := d.errands().ReadAnswer(d.agent, id); ok || err != nil {
		return answered(a, err)
	}
	return errand.Answer{}, true, taken
}

// answered is what onHub returns for an answer read, with err.
func answered(a errand.Answer, err error) (errand.Answer, bool, error) {
	if err != nil {
		return a, true, err
	}
	joined, err := answerError(a)
	return a, joined, err
}

// answerError is the error a refusal of the master stands for; joined is
// false when the master joins no hub after all.
func answerError(a errand.Answer) (joined bool, err error) {
	reason := safetext.Line(a.Reason)
	switch a.Refused {
	case "", errand.RefusedHeld:
		return true, nil
	case errand.RefusedNoHub:
		return false, nil
	case errand.RefusedRight:
		return true, &RightError{Msg: reason}
	case errand.RefusedHubAway:
		return true, fmt.Errorf("%w (%s); nothing was changed: try again when the hub is back", ErrHubAway, reason)
	case errand.RefusedInvalid:
		return true, fmt.Errorf("the master refused the request: %s", reason)
	}
	return true, errors.New(reason)
}
