package bulletin

import (
	"slices"
	"time"

	"switchboard/mailbox"
)

// StatusDegraded is the system status while the master cannot route, a
// full disk for one, or while mail from the hub may stall.
const StatusDegraded = "degraded"

// Degrade marks the bulletin degraded for topic (TopicDisk, TopicHub), with
// a warning from switchboard saying why, and returns the system status it
// replaced.
func (b *Bulletin) Degrade(topic, reason string, at time.Time) (was string) {
	was = b.SystemStatus
	if was == StatusDegraded {
		was = DefaultStatus
	}
	b.SystemStatus = StatusDegraded
	b.SetSystemWarning(topic, reason, at)
	return was
}

// Recover takes back what Degrade did for topic: switchboard's warning
// goes, and the system status becomes was again once nothing else keeps the
// bulletin degraded, unless someone changed it meanwhile.
func (b *Bulletin) Recover(topic, was string) {
	b.ClearSystemWarning(topic)
	if b.SystemStatus == StatusDegraded && !b.Degraded() {
		b.SystemStatus = was
	}
}

// Degraded reports whether switchboard marked the bulletin degraded, for any
// topic.
func (b *Bulletin) Degraded() bool {
	return slices.ContainsFunc(b.Warnings, degrading)
}

// DegradedFor reports whether switchboard marked the bulletin degraded for
// topic.
func (b *Bulletin) DegradedFor(topic string) bool {
	return slices.ContainsFunc(b.Warnings, about(topic))
}

// Topics of switchboard's own warnings: the bulletin holds at most one of
// each.
const (
	TopicDisk  = "disk"  // routing paused, the disk full
	TopicRules = "rules" // the rules file refused, or changed to let more through
	TopicHub   = "hub"   // mail from the hub may stall
)

// degrading matches switchboard's warnings that come with a degraded
// status.
func degrading(w Warning) bool { return about(TopicDisk)(w) || about(TopicHub)(w) }

// SetSystemWarning puts switchboard's warning on topic on the bulletin, in
// place of the one it had there.
func (b *Bulletin) SetSystemWarning(topic, text string, at time.Time) {
	b.ClearSystemWarning(topic)
	b.Warnings = append(b.Warnings, Warning{Text: text, From: mailbox.System, Topic: topic, At: at})
}

// ClearSystemWarning takes switchboard's warning on topic off the bulletin.
func (b *Bulletin) ClearSystemWarning(topic string) {
	b.Warnings = slices.DeleteFunc(b.Warnings, about(topic))
}

// about matches switchboard's warning on topic. A warning of switchboard's
// without a topic was written before topics were kept, when its only
// warning was the full disk's.
func about(topic string) func(Warning) bool {
	return func(w Warning) bool {
		return w.From == mailbox.System && (w.Topic == topic || w.Topic == "" && topic == TopicDisk)
	}
}
