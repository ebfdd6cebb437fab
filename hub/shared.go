package hub

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

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
	if err := checkKey("key", key); err != nil {
		return 0, err
	}
	ctx, cancel := c.linked(ctx)
	defer cancel()
	rev, err := c.shared.Put(ctx, key, value)
	return rev, c.sharedErr(ctx, err, "put", key)
}

// Get returns a shared value and its revision, or ErrNotFound.
func (c *Conn) Get(ctx context.Context, key string) ([]byte, uint64, error) {
	if err := checkKey("key", key); err != nil {
		return nil, 0, err
	}
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
	if err := checkKey("key", key); err != nil {
		return 0, err
	}
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

// Values returns every shared value of the team, by key: from the view of
// a Conn that joined, which the hub keeps current, else read.
func (c *Conn) Values(ctx context.Context) (map[string][]byte, error) {
	if values, ok := c.view.values(c.names); ok {
		return values, nil
	}
	ctx, cancel := c.linked(ctx)
	defer cancel()
	keys, err := c.keys(ctx, c.names.shared(), ">")
	if err != nil {
		return nil, c.sharedErr(ctx, err, "list", "")
	}
	values := make(map[string][]byte)
	for _, key := range keys {
		e, err := c.shared.Get(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
			continue // deleted
		}
		if err != nil {
			return nil, c.sharedErr(ctx, err, "get", key)
		}
		values[key] = e.Value()
	}
	return values, nil
}

// The team's shared state is kept under encoded keys, so that any name
// (spaces, slashes) may be a key of it.
const stateKeyPrefix = "s."

func stateKey(key string) string {
	return stateKeyPrefix + base64.RawURLEncoding.EncodeToString([]byte(key))
}

// SetState sets one key of the team's shared state.
func (c *Conn) SetState(ctx context.Context, key string, value []byte) error {
	_, err := c.Put(ctx, stateKey(key), value)
	return err
}

// State is the team's shared state, by key.
func (c *Conn) State(ctx context.Context) (map[string][]byte, error) {
	values, err := c.Values(ctx)
	if err != nil {
		return nil, err
	}
	return StateOf(values), nil
}

// StateOf is the team's shared state of its shared values (Values), by key.
func StateOf(values map[string][]byte) map[string][]byte {
	state := make(map[string][]byte, len(values))
	for k, v := range values {
		enc, ok := strings.CutPrefix(k, stateKeyPrefix)
		if !ok {
			continue
		}
		if key, err := base64.RawURLEncoding.DecodeString(enc); err == nil {
			state[string(key)] = v
		}
	}
	return state
}
