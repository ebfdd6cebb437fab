package desk

import (
	"fmt"

	"switchboard/bulletin"
	"switchboard/internal/safetext"
	"switchboard/master/link/errand"
)

// lockOnHub takes the resource on the hub first, when the workspace is a
// host of a team across machines, so that no agent of another host takes
// it too; the returned release gives back what it took.
func (d *Desk) lockOnHub(resource string) (release func(), err error) {
	a, joined, err := d.onHub(errand.Errand{Kind: errand.Lock, Resource: resource})
	switch {
	case err != nil || !joined:
		return func() {}, err
	case a.Refused == errand.RefusedHeld:
		return func() {}, fmt.Errorf("%w: %s is held by %s on host %s", bulletin.ErrHeld, resource, safetext.Line(a.Holder), safetext.Line(a.Host))
	case a.Revision == 0:
		return func() {}, nil // it holds it already
	}
	return func() {
		// This taking, and no later one: the errand names its revision.
		d.onHub(errand.Errand{Kind: errand.Unlock, Resource: resource, Revision: a.Revision})
	}, nil
}

// unlockOnHub gives the resource back on the hub, after it was released
// here; with force, the operator's, also the lock of an agent of a host
// that is gone (or of this host, exited). released names the holder whose
// lock went, "" when the hub held none.
func (d *Desk) unlockOnHub(resource string, force bool) (released string, err error) {
	kind := errand.Unlock
	if force {
		kind = errand.ForceUnlock
	}
	a, _, err := d.onHub(errand.Errand{Kind: kind, Resource: resource})
	switch {
	case err != nil:
		return "", err
	case a.Refused == errand.RefusedHeld:
		return "", fmt.Errorf("%w: %s is held by %s on host %s; only the holder may unlock it", bulletin.ErrNotHolder, resource, safetext.Line(a.Holder), safetext.Line(a.Host))
	case a.Holder == "":
		return "", nil
	}
	return a.Holder + " on host " + a.Host, nil
}
