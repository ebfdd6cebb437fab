package hub

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// ResourceLock is the name of the lock of a shared resource of the
// bulletin: a resource may be named with any text (spaces, slashes), a lock
// only with a key's letters.
func ResourceLock(resource string) string {
	return "r." + base64.RawURLEncoding.EncodeToString([]byte(resource))
}

// Lock is a lock this host holds. Its revision makes the release safe: a
// lock released by force and taken by someone else is not released again.
type Lock struct {
	Name, Owner, Host string
	Revision          uint64
}

type lockValue struct {
	Owner string `json:"owner"`
	Host  string `json:"host"`
}

// LockHeld is the refusal to take or force a lock someone holds.
type LockHeld struct {
	Name, Owner, Host string
	// Reachable is set by ForceUnlock: the holder's host is alive.
	Reachable bool
}

func (e *LockHeld) Error() string {
	if e.Reachable {
		return fmt.Sprintf("hub: lock %s is held by %s on host %s, which is alive: ask %s to release it", e.Name, e.Owner, e.Host, e.Owner)
	}
	return fmt.Sprintf("hub: lock %s is held by %s on host %s: wait for its release, or force it if host %s is gone", e.Name, e.Owner, e.Host, e.Host)
}

// ErrLockLost is a release of a lock that is no longer the one taken: it was
// forced and perhaps taken again.
var ErrLockLost = errors.New("hub: lock no longer held")

// Lock takes the lock name for owner, an agent of this host. It fails with
// *LockHeld when the lock is taken. Names are key names: letters, digits,
// and - _ = / . (a dot separates tokens).
func (c *Conn) Lock(ctx context.Context, name, owner string) (Lock, error) {
	if err := checkKey("lock name", name); err != nil {
		return Lock{}, err
	}
	ctx, cancel := c.linked(ctx)
	defer cancel()
	v, err := json.Marshal(lockValue{Owner: owner, Host: c.host})
	if err != nil {
		return Lock{}, err
	}
	rev, err := c.locks.Create(ctx, name, v)
	if errors.Is(err, jetstream.ErrKeyExists) {
		held, herr := c.readLock(ctx, name)
		if herr == nil {
			return Lock{}, &LockHeld{Name: name, Owner: held.Owner, Host: held.Host}
		}
		if freed(herr) {
			// Released between the create and the read: the caller may try again.
			return Lock{}, &LockHeld{Name: name}
		}
		err = herr
	}
	if errors.Is(err, jetstream.ErrInvalidKey) {
		return Lock{}, fmt.Errorf("%w: lock name %q: use letters, digits, - _ = / and dots between them", ErrBadName, name)
	}
	if err != nil {
		return Lock{}, c.explain(ctx, err, "take lock "+name)
	}
	return Lock{Name: name, Owner: owner, Host: c.host, Revision: rev}, nil
}

// ReadLock returns the lock name as it is held now, with the revision that
// releases it; ok is false when it is free.
func (c *Conn) ReadLock(ctx context.Context, name string) (l Lock, ok bool, err error) {
	if err := checkKey("lock name", name); err != nil {
		return Lock{}, false, err
	}
	ctx, cancel := c.linked(ctx)
	defer cancel()
	l, err = c.readLock(ctx, name)
	switch {
	case freed(err):
		return Lock{}, false, nil
	case err != nil:
		return Lock{}, false, c.explain(ctx, err, "read lock "+name)
	}
	return l, true, nil
}

func (c *Conn) readLock(ctx context.Context, name string) (Lock, error) {
	e, err := c.locks.Get(ctx, name)
	if err != nil {
		return Lock{}, err
	}
	var v lockValue
	_ = json.Unmarshal(e.Value(), &v) // a garbled value names no holder
	return Lock{Name: name, Owner: v.Owner, Host: v.Host, Revision: e.Revision()}, nil
}

// freed reports whether a lock's read found it free.
func freed(err error) bool {
	return errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted)
}

// Unlock releases a lock taken by Lock, only if it is still that lock;
// otherwise it returns ErrLockLost.
func (c *Conn) Unlock(ctx context.Context, l Lock) error {
	ctx, cancel := c.linked(ctx)
	defer cancel()
	err := c.locks.Delete(ctx, l.Name, l.Revision)
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyExists) {
		return fmt.Errorf("%w: %s was released by force or taken again", ErrLockLost, l.Name)
	}
	if err != nil {
		return c.explain(ctx, err, "release lock "+l.Name)
	}
	return nil
}

// forceRead, when a test sets it, runs in ForceUnlock between the read of
// the lock and its release: where another may release and take it again.
var forceRead func(name string)

// ForceUnlock releases a lock whose holder's host is gone. It refuses, with
// *LockHeld, when that host still beats; a lock that is free is no error.
// It releases the lock it read, and only that one: a lock released and
// taken again meanwhile stays taken, and ForceUnlock says so
// (ErrRevisionChanged, wrapped).
func (c *Conn) ForceUnlock(ctx context.Context, name string) error {
	return c.ForceUnlockIf(ctx, name, nil)
}

// ForceUnlockIf is ForceUnlock that also asks may, when it is not nil,
// whether the lock as read may be forced: its error is returned, and the
// lock left alone. (The holder of a lock of this host, say, must have
// exited: only its host can tell.)
func (c *Conn) ForceUnlockIf(ctx context.Context, name string, may func(Lock) error) error {
	if err := checkKey("lock name", name); err != nil {
		return err
	}
	ctx, cancel := c.linked(ctx)
	defer cancel()
	held, err := c.readLock(ctx, name)
	if freed(err) {
		return nil
	}
	if err != nil {
		return c.explain(ctx, err, "read lock "+name)
	}
	if may != nil {
		if err := may(held); err != nil {
			return err
		}
	}
	live, err := c.reachableNow(ctx)
	if err != nil {
		return c.explain(ctx, err, "read which hosts are reachable")
	}
	if held.Host != c.host && live[held.Host] {
		return &LockHeld{Name: name, Owner: held.Owner, Host: held.Host, Reachable: true}
	}
	if forceRead != nil {
		forceRead(name)
	}
	err = c.locks.Delete(ctx, name, held.Revision)
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyExists) {
		if _, err := c.readLock(ctx, name); freed(err) {
			return nil // released by its holder meanwhile
		}
		return fmt.Errorf("%w: lock %s was released and taken again while it was being forced, and stays taken: look at who holds it now", ErrRevisionChanged, name)
	}
	if err != nil {
		return c.explain(ctx, err, "force lock "+name)
	}
	return nil
}
