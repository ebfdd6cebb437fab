package master

import (
	"fmt"

	"switchboard/hub"
	"switchboard/internal/safetext"
	"switchboard/mailbox"
)

// refuseFromHub keeps a note of a copy from another host that this master
// will never take (mailboxes/.hub/refused/), counts it, tells the overseers
// once an hour for each host that sends such copies, and returns the
// refusal that ends the copy on the hub. When the note cannot be written,
// the hub keeps the copy, to be refused again later.
func (m *Master) refuseFromHub(d hub.Delivered, reason string) error {
	now := m.now().UTC()
	note := mailbox.RefusedCopy{ID: d.ID, Host: d.Host, From: d.From, To: d.To, Reason: reason, Published: d.Published, Refused: now}
	fresh, err := m.hub.refused.Keep(note, d.Body)
	if err != nil {
		m.logf("cannot keep the note of a refused copy from host %s: %v; the hub keeps the copy", safetext.Line(d.Host), err)
		m.noteFull(err)
		return err
	}
	if fresh {
		key := "hub-refused/" + d.Host + "/" + now.Format("2006-01-02T15")
		title := fmt.Sprintf("REFUSED: a copy from host %s", d.Host)
		m.hub.note(key, title, fmt.Sprintf(
			"Host %s sent a copy this host's master refused:\n  id %s, as from %s to %s: %s.\n"+
				"It is not delivered, and the hub drops it. Every copy refused is noted, with its reason, in %s; "+
				"`switchboard doctor` counts them by host. You hear of host %s again in an hour at the soonest.\n"+
				"A host whose copies are refused may be running code that is not its own.\n",
			d.Host, safetext.Line(d.ID), safetext.Line(d.From), d.To, safetext.Line(reason), m.hub.refused.Dir(), d.Host))
	}
	return hub.Refuse(reason)
}
