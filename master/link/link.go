package link

import (
	"context"
	"time"

	"switchboard/mailbox"
	"switchboard/master/link/errand"
	"switchboard/workspace"
)

// Link is a master's membership of a team across machines. Its methods are
// safe for concurrent use.
type Link interface {
	// Host and Team name this host and its team.
	Host() string
	Team() string
	// Start joins the team and keeps the link up until ctx ends; stop
	// waits for it to end. A hub that refuses this host (its rules differ,
	// one of its agents runs on another host) is an error; one out of
	// reach is not: it is joined later, and meanwhile mail for other hosts
	// waits on this disk.
	Start(ctx context.Context, env Env) (stop func(), err error)
	// Remote reports whether agent runs on another host.
	Remote(agent string) bool
	// Send puts the copy of record seq for to, an agent of another host, on
	// its way; Flush makes the copies put since the last Flush durable.
	Send(seq int64, to string, m *mailbox.Message) error
	Flush() error
	// Arrivals are the copies from other hosts for this host's agents,
	// for the master to deliver.
	Arrivals() <-chan Arrival
	// Notes are notices for the overseers.
	Notes() <-chan Note
	// MayLearn reports whether a copy from a sender this host's rules do
	// not know may be tried again: a helper its host announced a moment
	// ago, which the rules here learn at the link's next look.
	MayLearn(c Copy) bool
	// StatesChanged tells the link that a state file of one of this
	// host's agents changed, or may have: the hub hears of it at once, and
	// a team at rest reads no state file.
	StatesChanged()
	// Do does a command's errand on the hub, for agent of this host, whose
	// right to it the master checked; exited tells whether an agent of
	// this host has exited (its lock may be forced).
	Do(ctx context.Context, agent string, e *errand.Errand, exited func(agent string) bool) errand.Answer
}

// Env is what a Link is told of its master.
type Env struct {
	// Workspace is the master's.
	Workspace *workspace.Workspace
	// Logf writes a line in the master's log.
	Logf func(format string, args ...any)
	// RulesChanged tells the master that the agents other hosts spawned,
	// which its rules know, changed.
	RulesChanged func()
}

// Copy is a copy from another host for an agent of this host.
type Copy struct {
	ID, To, From string
	// Host published it.
	Host string
	Body []byte
	// Published is when the hub stored it, by its clock.
	Published time.Time
	// Profile and Parent say where its sender comes from when it is a
	// helper its host spawned.
	Profile, Parent string
	// Refused, when set, is why the copy is not its sender's: the master
	// keeps a note of it and never delivers it.
	Refused error
	// Deliveries counts the times it came, this one included.
	Deliveries uint64
}

// Arrival is copies that arrived together, and where their outcomes go, one
// a copy: nil for a copy delivered, a *Refusal for one never to come again,
// another error for one to try later.
type Arrival struct {
	Copies []Copy
	Done   chan<- []error
}

// Note is a notice for the overseers, told once for its key.
type Note struct{ Key, Title, Content string }

// Refusal is the outcome of a copy that will never be taken: the link
// drops it for good.
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return r.Reason }

// Refuse returns a *Refusal with the reason.
func Refuse(reason string) error { return &Refusal{Reason: reason} }
