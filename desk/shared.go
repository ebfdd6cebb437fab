package desk

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"switchboard/bulletin"
	"switchboard/internal/safetext"
	"switchboard/mailbox"
)

// Errors of the shared resources and state.
var (
	// ErrBlank is a resource or key without a name.
	ErrBlank = errors.New("give it a name")
	// ErrBadReason is a lock's reason that is not one short line.
	ErrBadReason = fmt.Errorf("a lock's reason is one line of at most %d characters", mailbox.MaxTitleLength)
	// ErrNoSuchKey is a key the shared state does not have.
	ErrNoSuchKey = errors.New("no shared state")
)

// Lock takes a shared resource for the desk's agent; bulletin.ErrHeld,
// wrapped, saying who holds it, when another does. In a team across
// machines it is taken on the hub first, so that no agent of another host
// holds it at once; with the hub away it is not taken (ErrHubAway).
func (d *Desk) Lock(resource, reason string) error {
	if strings.TrimSpace(resource) == "" {
		return fmt.Errorf("the resource: %w", ErrBlank)
	}
	if !mailbox.FitsLine(resource) {
		return fmt.Errorf("a resource's name is one line of at most %d characters (this one has %d)", mailbox.MaxTitleLength, utf8.RuneCountInString(resource))
	}
	// Every agent sees the reason before each prompt: it says why, in a
	// line; what more there is to say goes in a message, which the rules
	// route and the log keeps.
	if !mailbox.FitsLine(reason) {
		return fmt.Errorf("%w (this one has %d); say more in a message", ErrBadReason, utf8.RuneCountInString(reason))
	}
	release, err := d.lockOnHub(resource)
	if err != nil {
		return err
	}
	if err := bulletin.Of(d.ws).Acquire(resource, d.agent, reason); err != nil {
		release()
		return err
	}
	return nil
}

// Unlock releases a shared resource the desk's agent holds. With force the
// operator releases the lock of an agent that has exited (a *RightError
// for anyone else, or for a holder still running). It returns the lock
// released.
func (d *Desk) Unlock(resource string, force bool) (bulletin.Lock, error) {
	store := bulletin.Of(d.ws)
	if force {
		if d.agent != mailbox.Operator {
			return bulletin.Lock{}, &RightError{Msg: "only the operator may force a lock"}
		}
		b, err := store.Read()
		if err != nil {
			return bulletin.Lock{}, err
		}
		if l, ok := b.SharedResources[resource]; ok && !d.book().HasExited(l.Holder) {
			return bulletin.Lock{}, &RightError{Msg: fmt.Sprintf("%s is held by %s, which has not exited; ask it to unlock, or stop it first", resource, safetext.Line(l.Holder))}
		}
	}
	released, err := store.Release(resource, d.agent, force)
	if err != nil {
		if errors.Is(err, bulletin.ErrNotHolder) || !force {
			return released, err
		}
		// Not held here: a lock of an agent of another host, which the
		// operator forces when that host is gone.
		holder, hubErr := d.unlockOnHub(resource, true)
		switch {
		case hubErr != nil:
			return released, hubErr
		case holder == "":
			return released, err // held nowhere
		}
		return bulletin.Lock{Holder: holder}, nil
	}
	_, err = d.unlockOnHub(resource, force)
	return released, err
}

// State is one key of the shared state (see StateList).
func (d *Desk) State(key string) (json.RawMessage, error) {
	state, err := d.StateList()
	if err != nil {
		return nil, err
	}
	v, ok := state[key]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrNoSuchKey, key)
	}
	return v, nil
}

// SetState sets one key of the shared state to a JSON value; in a team
// across machines on the hub too, for every host.
func (d *Desk) SetState(key string, value json.RawMessage) error {
	if strings.TrimSpace(key) == "" {
		return fmt.Errorf("the key: %w", ErrBlank)
	}
	// A key is shown, and crosses the hub, as a name: a line.
	if !mailbox.FitsLine(key) {
		return fmt.Errorf("a key of the shared state is one line of at most %d characters (this one has %d): keep what is long in the value", mailbox.MaxTitleLength, utf8.RuneCountInString(key))
	}
	if !json.Valid(value) {
		return fmt.Errorf("the value of %s is not JSON", key)
	}
	// The hub first: a value it does not hold is not shared.
	if err := d.setOnHub(key, value); err != nil {
		return err
	}
	return bulletin.Of(d.ws).SetState(key, value)
}

// StateList is the whole shared state. In a team across machines it is the
// hub's, as this host's master copies it into the bulletin on every beat
// (and as this host set it since): a value another host set shows within
// a beat.
func (d *Desk) StateList() (map[string]json.RawMessage, error) {
	return bulletin.Of(d.ws).ReadState()
}
