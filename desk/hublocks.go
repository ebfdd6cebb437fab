package desk

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"switchboard/bulletin"
	"switchboard/hub"
)

// hubErrand bounds a lock's trip to the hub.
const hubErrand = 10 * time.Second

// ErrHubAway is a lock or a shared value that could not be taken, released
// or set on the hub of a team across machines: without it, another host
// could take the same lock, or would not see the value.
var ErrHubAway = errors.New("the hub is out of reach")

// hubLockKey is a resource's name as a key of the hub's locks.
func hubLockKey(resource string) string {
	return "r." + base64.RawURLEncoding.EncodeToString([]byte(resource))
}

// onHub runs errand on the team's hub, when the workspace joins one; ok is
// false when it joins none.
func (d *Desk) onHub(errand func(ctx context.Context, c *hub.Conn) error) (ok bool, err error) {
	s, joined, err := d.ws.Hub()
	if err != nil || !joined {
		return false, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), hubErrand)
	defer cancel()
	c, err := hub.Dial(ctx, s.URL, hub.JoinConfig{Team: s.Team, Host: s.Host, RootCAs: s.CA})
	if err != nil {
		return true, fmt.Errorf("%w (%w); nothing was changed: try again when the hub is back", ErrHubAway, err)
	}
	defer c.Close()
	return true, errand(ctx, c)
}

// lockOnHub takes the resource on the hub first, so that no agent of
// another host takes it too; the returned release gives it back.
func (d *Desk) lockOnHub(resource string) (release func(), err error) {
	var taken hub.Lock
	joined, err := d.onHub(func(ctx context.Context, c *hub.Conn) error {
		taken, err = c.Lock(ctx, hubLockKey(resource), d.agent)
		var held *hub.LockHeld
		if errors.As(err, &held) {
			if held.Owner == d.agent && held.Host == c.Host() {
				return nil // it holds it already
			}
			return fmt.Errorf("%w: %s is held by %s on host %s", bulletin.ErrHeld, resource, held.Owner, held.Host)
		}
		return err
	})
	if err != nil || !joined || taken.Name == "" {
		return func() {}, err
	}
	return func() {
		d.onHub(func(ctx context.Context, c *hub.Conn) error { return c.Unlock(ctx, taken) })
	}, nil
}

// unlockOnHub gives the resource back on the hub, after it was released
// here; with force, also the lock of an agent of a host that is gone.
func (d *Desk) unlockOnHub(resource string) error {
	_, err := d.onHub(func(ctx context.Context, c *hub.Conn) error {
		err := c.ForceUnlock(ctx, hubLockKey(resource))
		var held *hub.LockHeld
		if errors.As(err, &held) {
			return &RightError{Msg: fmt.Sprintf("%s is held by %s on host %s, which is up: ask it to unlock", resource, held.Owner, held.Host)}
		}
		return err
	})
	return err
}
