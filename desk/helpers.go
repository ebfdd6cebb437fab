package desk

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"switchboard/conversation"
	"switchboard/internal/watch"
	"switchboard/lifecycle"
	"switchboard/mailbox"
)

// Errors of the helpers' lifecycle: Wait, Close, Cancel.
var (
	// ErrClosed is an agent that was closed: its mail stays.
	ErrClosed = errors.New("no longer an agent of this team (closed?)")
	// ErrNotSpawned is an agent of the rules, which is neither waited for
	// nor closed alone.
	ErrNotSpawned = lifecycle.ErrNotSpawned
	// ErrNotYourHelper is a helper of another agent.
	ErrNotYourHelper = errors.New("not your helper")
	// ErrNoRight is a close or cancel the rules do not give the agent
	// (errors.Is matches a *RightError).
	ErrNoRight = errors.New("not allowed by the rules")
	// ErrHelperExited is a helper that stopped before it answered.
	ErrHelperExited = errors.New("exited without sending you a response")
)

// RightError is an action the rules do not give the agent, saying who may;
// Err, when set, is why (the rules did not load).
type RightError struct {
	Msg string
	Err error
}

func (e *RightError) Error() string        { return e.Msg }
func (e *RightError) Is(target error) bool { return target == ErrNoRight }
func (e *RightError) Unwrap() error        { return e.Err }

// CancelledError is a helper cancelled before it answered.
type CancelledError struct{ By, Reason string }

func (e *CancelledError) Error() string {
	if e.Reason == "" {
		return "cancelled by " + e.By
	}
	return "cancelled by " + e.By + " (" + e.Reason + ")"
}

// helperOf checks that agent is a helper the desk's agent spawned.
func (d *Desk) helperOf(agent string) error {
	if d.rules == nil {
		return d.noRules()
	}
	if !d.rules.Knows(agent) {
		if d.ws.HasMailbox(agent) {
			return fmt.Errorf("%s is %w; its mail stays in %s", agent, ErrClosed, d.store().AgentDir(agent))
		}
		return NotAnAgent(d.rules, agent)
	}
	switch parent, spawned := d.rules.Parent(agent); {
	case !spawned:
		return fmt.Errorf("%s %w, so no task of yours waits for its answer", agent, ErrNotSpawned)
	case parent != d.agent:
		return fmt.Errorf("%s is %w: it answers to %s, and its response goes to %s's inbox", agent, ErrNotYourHelper, parent, parent)
	}
	return nil
}

// Wait waits, up to timeout (0 for as long as ctx lasts), for the response
// of a helper the desk's agent spawned, marks it read and returns it. Other
// mail stays unread. started, when not nil, is called once the helper is
// found to be one to wait for. A helper that exits, is closed or is
// cancelled first ends the wait with ErrHelperExited or a
// *CancelledError; no response in time is ErrNoAnswer.
func (d *Desk) Wait(ctx context.Context, agent string, timeout time.Duration, started func()) (*mailbox.Message, error) {
	if err := d.helperOf(agent); err != nil {
		return nil, err
	}
	if answer := d.rules.Decide(agent, d.agent); !answer.Allowed {
		return nil, &CannotAnswerError{Helper: agent, Decision: answer}
	}
	if started != nil {
		started()
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	go d.watchHelper(ctx, agent, stop)
	entry, msg, err := d.store().WaitFor(ctx, d.agent, func(m *mailbox.Message, _ mailbox.Record) bool {
		return m.From == agent && m.Type == mailbox.TypeResponse
	})
	var cancelled *CancelledError
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, ErrHelperExited):
		return nil, fmt.Errorf("%s %w", agent, ErrHelperExited)
	case errors.As(cause, &cancelled):
		return nil, fmt.Errorf("%s was %w before it sent you a response", agent, cancelled)
	case errors.Is(err, context.DeadlineExceeded) && timeout > 0:
		return nil, fmt.Errorf("%w from %s within %s: no response", ErrNoAnswer, agent, timeout)
	case err != nil:
		return nil, err
	}
	if _, err := d.store().MarkRead(d.agent, entry); err != nil {
		return nil, err
	}
	return msg, nil
}

// helperTick is how often a helper's state is looked at where its folders
// cannot be watched; where they can, only a change wakes the wait.
const helperTick = time.Second

// watchHelper stops a wait when the helper's state turns exited (its pane
// died, its session ended, or it was closed), or when it is cancelled: the
// workspace's list of helpers and the helper's state file are looked at
// each time their folders change.
func (d *Desk) watchHelper(ctx context.Context, agent string, stop context.CancelCauseFunc) {
	// After a first look at the inbox: a response there is taken.
	if watch.Sleep(ctx, 250*time.Millisecond) != nil {
		return
	}
	dirs := []string{filepath.Dir(d.ws.SpawnedFile()), filepath.Dir(d.book().StatePath(agent))}
	watch.Await(ctx, helperTick, dirs, func() bool {
		if spawned, err := d.ws.Spawned(); err == nil {
			if c := spawned[agent].Cancelled; c != nil {
				stop(&CancelledError{By: c.By, Reason: c.Reason})
				return true
			}
		}
		if st, ok, _ := d.book().State(agent); ok && st.State == conversation.Exited {
			// A response sent just before the end is still taken: give the
			// master a moment to deliver it.
			if watch.Sleep(ctx, 2*time.Second) == nil {
				stop(ErrHelperExited)
			}
			return true
		}
		return false
	})
}

// Close closes a spawned agent, and first everything spawned under it,
// when the desk's agent is one of its ancestors or an overseer; its parent
// is told, unless it closed it. It returns the agents closed, deepest
// first, and what became of their worktrees: each goes only when it holds
// nothing of its own, unless discard is set. Of an agent closed before,
// it removes the worktree it left, on the same terms (no agent is closed).
func (d *Desk) Close(ctx context.Context, agent string, discard bool) (lifecycle.Closed, error) {
	kept, err := d.closable(agent)
	switch {
	case err != nil:
		return lifecycle.Closed{}, err
	case kept:
		return d.closeKeptTree(ctx, agent, discard)
	}
	parent, _ := d.rules.Parent(agent)
	closed, err := lifecycle.Close(ctx, d.ws, agent, discard)
	if err != nil {
		return lifecycle.Closed{}, err
	}
	if parent == d.agent || !d.rules.Knows(parent) {
		return closed, nil
	}
	notice := &mailbox.Message{To: []string{parent}, Title: mailbox.ClipTitle("Closed: " + agent), Type: mailbox.TypeNotification}
	if names := closed.Agents; len(names) > 1 {
		notice.Content = fmt.Sprintf("%s closed %s and the agents spawned under it: %s.", d.agent, agent, strings.Join(names[:len(names)-1], ", "))
	} else {
		notice.Content = fmt.Sprintf("%s closed %s.", d.agent, agent)
	}
	for _, fate := range closed.Trees {
		if fate.Kept != nil {
			notice.Content += fmt.Sprintf("\n\nIts worktree stays: %v.", fate.Kept)
		}
	}
	if _, err := d.Send(notice); err != nil {
		return closed, &ParentNotToldError{Parent: parent, Err: err}
	}
	return closed, nil
}

// closable checks that the desk's agent may close agent: a spawned agent,
// by one of its ancestors or an overseer. kept says agent was closed
// before, and what is left of it is the worktree it kept, which
// closeKeptTree checks on its own terms.
func (d *Desk) closable(agent string) (kept bool, err error) {
	if d.rules == nil {
		return false, d.noRules()
	}
	_, spawned := d.rules.Parent(agent)
	switch {
	case !d.rules.Knows(agent) && d.ws.HasMailbox(agent):
		return true, nil
	case !spawned && !d.rules.Knows(agent):
		return false, NotAnAgent(d.rules, agent)
	case !spawned:
		return false, fmt.Errorf("%s %w, so it cannot be closed alone: the team is stopped as a whole", agent, ErrNotSpawned)
	case !d.rules.MayClose(d.agent, agent):
		return false, &RightError{Msg: fmt.Sprintf("%s may not close %s: only its ancestors and the overseers may", d.agent, agent)}
	}
	return false, nil
}

// ParentNotToldError is a close done whose notice to the parent did not go
// out.
type ParentNotToldError struct {
	Parent string
	Err    error
}

func (e *ParentNotToldError) Error() string {
	return fmt.Sprintf("%s was not told: %v", e.Parent, e.Err)
}
func (e *ParentNotToldError) Unwrap() error { return e.Err }

// Cancel stops an agent and everything spawned under it: each gets ESC and
// a [CANCELLED] notice from the master, the deepest first, and a parent's
// wait for it ends. An agent may cancel its own helpers; the interrupts
// list of the rules anyone. It returns the agents cancelled.
func (d *Desk) Cancel(agent, reason string) ([]string, error) {
	if d.rules == nil {
		return nil, d.noRules()
	}
	if !d.rules.Knows(agent) {
		return nil, NotAnAgent(d.rules, agent)
	}
	if !d.rules.MayInterruptAgent(d.agent, agent) {
		return nil, &RightError{Msg: fmt.Sprintf("%s may not cancel %s: an agent may cancel the agents it spawned, and the interrupts list of the rules anyone", d.agent, agent)}
	}
	return lifecycle.Cancel(d.ws, d.agent, agent, strings.TrimSpace(reason))
}
