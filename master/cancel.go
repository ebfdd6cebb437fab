package master

import (
	"fmt"

	"switchboard/mailbox"
)

// A cancel notice is vouched for, not believed, as a permission prompt is:
// its field, like its title, is what any agent can write into its outbox.
// The master checks, when it routes an interrupt that carries the field,
// that the field names the sender and that the sender may interrupt each
// agent it reaches; and writes the verdict into the record (Record.Cancel),
// which is what readers check. Anything else is delivered as what it is,
// with a note in the log.

// vouchCancel records in rec whether msg from agent is a cancel notice.
// Called once the rules decided who gets it.
func (m *Master) vouchCancel(agent string, msg *mailbox.Message, rec *mailbox.Record) {
	if !msg.HasCancelField() || len(rec.Delivered) == 0 {
		return
	}
	why := ""
	if _, ok := msg.Cancel(); !ok {
		why = "its cancel field is not one cancel writes: an interrupt's, naming its sender"
	}
	for _, to := range rec.Delivered {
		if why == "" && !m.rules.MayInterruptAgent(agent, to) {
			why = fmt.Sprintf("%s may not interrupt %s", agent, to)
		}
	}
	rec.Cancel = why == ""
	if why != "" {
		rec.Notes = append(rec.Notes, "not a cancel notice: "+why)
	}
}
