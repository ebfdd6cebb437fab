package hub

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// Sentinel errors of the shared values.
var (
	// ErrNotFound is a shared key that has no value.
	ErrNotFound = errors.New("hub: no such key")
	// ErrRevisionChanged is an Update that lost a race: read the value
	// again and decide again.
	ErrRevisionChanged = errors.New("hub: value changed since it was read")
)

// Put sets a shared value of the team and returns its revision.
func (c *Conn) Put(ctx context.Context, key string, value []byte) (uint64, error) {
	ctx, cancel := c.linked(ctx)
	defer cancel()
	rev, err := c.shared.Put(ctx, key, value)
	return rev, c.sharedErr(ctx, err, "put", key)
}

// Get returns a shared value and its revision, or ErrNotFound.
func (c *Conn) Get(ctx context.Context, key string) ([]byte, uint64, error) {
	ctx, cancel := c.linked(ctx)
	defer cancel()
	e, err := c.shared.Get(ctx, key)
	if err != nil {
		return nil, 0, c.sharedErr(ctx, err, "get", key)
	}
	return e.Value(), e.Revision(), nil
}

// Update sets a shared value only if its revision is still revision (0 for
// a key that must not exist yet), and returns the new revision; it fails
// with ErrRevisionChanged when someone wrote in between.
func (c *Conn) Update(ctx context.Context, key string, value []byte, revision uint64) (uint64, error) {
	ctx, cancel := c.linked(ctx)
	defer cancel()
	var rev uint64
	var err error
	if revision == 0 {
		rev, err = c.shared.Create(ctx, key, value)
	} else {
		rev, err = c.shared.Update(ctx, key, value, revision)
	}
	return rev, c.sharedErr(ctx, err, "update", key)
}

func (c *Conn) sharedErr(ctx context.Context, err error, doing, key string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return fmt.Errorf("%w: %s", ErrNotFound, key)
	case errors.Is(err, jetstream.ErrKeyRevisionMismatch), errors.Is(err, jetstream.ErrKeyExists):
		return fmt.Errorf("%w: %s", ErrRevisionChanged, key)
	case errors.Is(err, jetstream.ErrInvalidKey):
		return fmt.Errorf("%w: key %q: use letters, digits, - _ = / and dots between them", ErrBadName, key)
	}
	return c.explain(ctx, err, doing+" shared value "+key)
}
