package desk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"switchboard/hub"
)

// setOnHub sets a key of the shared state on the hub, for every host.
func (d *Desk) setOnHub(key string, value json.RawMessage) error {
	_, err := d.onHub(func(ctx context.Context, c *hub.Conn) error {
		return c.SetState(ctx, key, value)
	})
	return err
}

// stateOnHub reads the shared state from the hub; joined is false when the
// workspace joins no hub.
func (d *Desk) stateOnHub() (state map[string]json.RawMessage, joined bool, err error) {
	joined, err = d.onHub(func(ctx context.Context, c *hub.Conn) error {
		values, err := c.State(ctx)
		state = make(map[string]json.RawMessage, len(values))
		for k, v := range values {
			if json.Valid(v) {
				state[k] = v
			}
		}
		return err
	})
	if errors.Is(err, ErrHubAway) {
		err = fmt.Errorf("%w; `switchboard bulletin` shows this host's copy of the state", err)
	}
	return state, joined, err
}
