package rules

import (
	"strings"

	"switchboard/mailbox"
)

// The person at another host of a team across machines: mail from the
// operator of another host reaches this one, but that person is not this
// host's operator. The rules let them write as the operator may; they have
// the operator's other rights here (oversight, interrupts, closing and
// cancelling, answering any request) only where the file grants those to
// the operator by name.

// PersonAt is the name the rules give the person at host.
func PersonAt(host string) string { return mailbox.Operator + "@" + host }

// IsPersonElsewhere reports whether agent is the person at another host.
func IsPersonElsewhere(agent string) bool {
	host, ok := strings.CutPrefix(agent, mailbox.Operator+"@")
	return ok && mailbox.WellFormedName(host)
}

// grantedToOperator reports whether the file names the operator in list:
// what the person at another host is granted.
func (r *Rules) grantedToOperator(list []Name) bool {
	return hasName(list, mailbox.Operator)
}
