package master

import (
	"fmt"

	"switchboard/mailbox"
)

// A cancel notice is vouched for, not believed, as a permission prompt is:
// its field, like its title, is what any agent can write into its outbox.
// The master checks, when it routes an interrupt that carries the field,
// that the field names the sender and that the sender may interrupt each
// agent it reaches (one who may could write the field by hand as well: it
// has the right cancel checks); and writes the verdict into the record (Record.Cancel),
// which is what readers check. Anything else is delivered as what it is,
// with a note in the log.

// vouchCancel records in rec whether msg from agent is a cancel notice.
// Called once the rules decided who gets it.
func (m *Master) vouchCancel(agent string, msg *mailbox.Message, rec *mailbox.Record) {
	if !msg.HasCancelField() || len(rec.Delivered) == 0 {
		return
	}
	for _, to := range rec.Delivered {
		if _, why := m.cancelFor(agent, msg, to); why != "" {
			rec.Notes = append(rec.Notes, "not a cancel notice: "+why)
			return
		}
	}
	rec.Cancel = true
}

// cancelFor is the cancel msg makes of agent to, sent by by (an agent of
// this host, or the principal of a copy from another); why it makes none
// when it does not. Routing and the copies from other hosts ask it alike.
func (m *Master) cancelFor(by string, msg *mailbox.Message, to string) (c mailbox.Cancel, why string) {
	c, ok := msg.Cancel()
	switch {
	case !ok:
		return c, "its cancel field is not one cancel writes: an interrupt's, naming its sender"
	case !m.rules.MayInterruptAgent(by, to):
		return c, fmt.Sprintf("%s may not interrupt %s", by, to)
	}
	return c, ""
}
