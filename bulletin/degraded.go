package bulletin

import (
	"slices"
	"time"

	"switchboard/mailbox"
)

// StatusDegraded is the system status while the master cannot route, a
// full disk for one.
const StatusDegraded = "degraded"

// Degrade marks the bulletin degraded, with a warning from switchboard
// saying why, and returns the system status it replaced.
func (b *Bulletin) Degrade(reason string, at time.Time) (was string) {
	was = b.SystemStatus
	if was == StatusDegraded {
		was = DefaultStatus
	}
	b.Warnings = slices.DeleteFunc(b.Warnings, fromSwitchboard)
	b.SystemStatus = StatusDegraded
	b.Warnings = append(b.Warnings, Warning{Text: reason, From: mailbox.System, At: at})
	return was
}

// Recover takes back what Degrade did: the system status becomes was again,
// unless someone changed it meanwhile, and switchboard's warning goes.
func (b *Bulletin) Recover(was string) {
	if b.SystemStatus == StatusDegraded {
		b.SystemStatus = was
	}
	b.Warnings = slices.DeleteFunc(b.Warnings, fromSwitchboard)
}

// Degraded reports whether switchboard marked the bulletin degraded.
func (b *Bulletin) Degraded() bool {
	return slices.ContainsFunc(b.Warnings, fromSwitchboard)
}

func fromSwitchboard(w Warning) bool { return w.From == mailbox.System }
