package desk

import (
	"encoding/json"

	"switchboard/master/link/errand"
)

// setOnHub sets a key of the shared state on the hub, when the workspace is
// a host of a team across machines, for every host.
func (d *Desk) setOnHub(key string, value json.RawMessage) error {
	_, _, err := d.onHub(errand.Errand{Kind: errand.SetState, Key: key, Value: value})
	return err
}
