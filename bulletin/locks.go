package bulletin

import (
	"errors"
	"fmt"
	"time"

	"switchboard/internal/safetext"
)

// MaxLocks bounds the resources held at once: every hook shows them.
const MaxLocks = 256

// ErrHeld is returned when a resource is held by someone else.
var ErrHeld = errors.New("resource is held")

// ErrNotHolder is returned when an agent releases a lock it does not hold.
var ErrNotHolder = errors.New("not the holder")

// Acquire takes a shared resource for agent. Taking a resource one already
// holds renews it. When someone else holds it, the error wraps ErrHeld and
// says who, since when and why.
func (s *Store) Acquire(resource, agent, reason string) error {
	return s.Update(func(b *Bulletin) error {
		l, held := b.SharedResources[resource]
		if held && l.Holder != agent {
			return heldError(resource, l)
		}
		if !held && len(b.SharedResources) >= MaxLocks {
			return fmt.Errorf("%d resources are held, %w of the bulletin: release those no one needs first", len(b.SharedResources), ErrTooBig)
		}
		b.SharedResources[resource] = Lock{Holder: agent, Reason: reason, Since: time.Now().UTC()}
		return nil
	})
}

// Release frees a resource. Only its holder may, unless force is set (for
// the operator clearing the lock of an agent that exited).
func (s *Store) Release(resource, agent string, force bool) (Lock, error) {
	var released Lock
	err := s.Update(func(b *Bulletin) error {
		l, held := b.SharedResources[resource]
		if !held {
			return fmt.Errorf("%s is not locked", resource)
		}
		if l.Holder != agent && !force {
			return fmt.Errorf("%w: %s is held by %s; only the holder may unlock it", ErrNotHolder, resource, safetext.Line(l.Holder))
		}
		released = l
		delete(b.SharedResources, resource)
		return nil
	})
	return released, err
}

// heldError says who holds resource, since when and why; escaped, since
// any agent may write the bulletin, and the error is printed.
func heldError(resource string, l Lock) error {
	msg := fmt.Sprintf("%s is held by %s since %s", resource, safetext.Line(l.Holder), l.Since.Local().Format("15:04:05"))
	if l.Reason != "" {
		msg += fmt.Sprintf(" (%s)", safetext.Line(l.Reason))
	}
	return fmt.Errorf("%w: %s", ErrHeld, msg)
}
