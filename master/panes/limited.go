package panes

import (
	"time"

	"switchboard/conversation"
)

// An agent whose client hit its usage or rate limit, or lost its login,
// is limited (its StopFailure hook says so): not failed, not started
// again. Its notices wait; the overseers are told once; after LimitRetry
// a notice is let through, which has the client try again: a turn that
// works makes it busy, then idle, and one that does not makes it limited
// again, without telling anyone twice.
const LimitRetry = 5 * time.Minute

// limitHolds reports whether the agent's notices wait for its limit.
func limitHolds(v *view, now time.Time) bool {
	return v.state.State == conversation.Limited && now.Sub(v.state.Since) < LimitRetry
}

// limitedNotice is an agent newly limited, for the overseers.
type limitedNotice struct {
	agent string
	state conversation.State
}

// noteLimit follows an agent's state under the lock: the first limit
// after a turn that worked is to be told; a turn that worked (busy, then
// idle) ends the episode. A retry that fails goes busy, then limited:
// nobody is told again.
func noteLimit(name string, v *view, next conversation.State) *limitedNotice {
	switch next.State {
	case conversation.Limited:
		if v.limitTold {
			return nil
		}
		v.limitTold = true
		return &limitedNotice{agent: name, state: next}
	case conversation.Idle:
		if v.state.State == conversation.Busy {
			v.limitTold = false
		}
	}
	return nil
}

// clientWord is the newer of what the agent's hooks and its client's
// registry say, but that the client's registry says idle after a turn
// that ended on a limit: it is idle at its prompt, and limited still.
func clientWord(hooked, client conversation.State) conversation.State {
	if hooked.State == conversation.Limited && client.State == conversation.Idle {
		return hooked
	}
	return newer(hooked, client)
}
