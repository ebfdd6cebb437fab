package rules

import (
	"fmt"

	"switchboard/mailbox"
)

// Decision says whether a message may go from one agent to another, and the
// lines of the rules file that decided it.
type Decision struct {
	From    string   `json:"from"`
	To      string   `json:"to"`
	Allowed bool     `json:"allowed"`
	Reason  string   `json:"reason,omitempty"` // why it is blocked
	Because []string `json:"because"`          // each deciding line, "file:line: what it says"
}

// Decide applies the rules to a message from one agent to another.
// Spawned agents are matched by their role (see WithSpawned), and a parent
// and the agent it spawned may always talk unless a forbidden entry says no.
func (r *Rules) Decide(from, to string) Decision {
	d := Decision{From: from, To: to}
	if f, asFrom, asTo, ok := r.forbiddenBy(from, to); ok {
		d.Reason = f.Reason
		if d.Reason == "" {
			d.Reason = fmt.Sprintf("%s may not send to %s", asFrom, asTo)
		}
		d.Because = append(d.Because, r.at(f.Line, "forbidden: %s → %s (%q)", f.From, f.To, f.Reason))
		if asFrom != from && asFrom != r.role(from) {
			d.Because = append(d.Because, fmt.Sprintf("%s was spawned under %s, and keeps what %s may not do", from, asFrom, asFrom))
			d.Reason += fmt.Sprintf(" (%s was spawned under %s)", from, asFrom)
		}
		if asTo != to && asTo != r.role(to) {
			d.Because = append(d.Because, fmt.Sprintf("%s was spawned under %s, and is kept from what %s is kept from", to, asTo, asTo))
			d.Reason += fmt.Sprintf(" (%s was spawned under %s)", to, asTo)
		}
		return d
	}
	asFrom, asTo := r.role(from), r.role(to)
	self := from == to
	if r.family(from, to) {
		d.Allowed = true
		d.Because = append(d.Because, fmt.Sprintf("%s and %s are parent and spawned child, who may always talk", from, to))
		return d
	}
	if asFrom != from || asTo != to {
		d.Because = append(d.Because, fmt.Sprintf("spawned agents are matched by their profile: %s as %s, %s as %s", from, asFrom, to, asTo))
	}
	from, to = asFrom, asTo
	// Both sides are looked at, so that the fix names every change needed.
	sendOK, sendWhy := r.maySend(from, to)
	receiveOK, receiveWhy := r.mayReceive(to, from)
	d.Because = append(d.Because, sendWhy, receiveWhy)
	switch {
	case self && (!sendOK || !receiveOK):
		// Adding the agent to its own lists is no fix: the writer meant
		// someone else, or took itself for someone else.
		d.Reason = fmt.Sprintf("%s is writing to itself: a message is for another agent", d.From)
		return d
	case !sendOK && !receiveOK:
		d.Reason = fmt.Sprintf("%s is not allowed to send to %s, nor does %s accept messages from %s (add %s to %s's can_send_to, and %s to %s's can_receive_from)", from, to, to, from, to, from, from, to)
		return d
	case !sendOK:
		d.Reason = fmt.Sprintf("%s is not allowed to send to %s (add %s to %s's can_send_to)", from, to, to, from)
		return d
	case !receiveOK:
		d.Reason = fmt.Sprintf("%s does not accept messages from %s (add %s to %s's can_receive_from)", to, from, from, to)
		return d
	}
	d.Allowed = true
	return d
}

// forbiddenBy returns the first forbidden entry that matches a send, the
// way Decide matches them: by each agent's name or its role, or those of
// an agent it was spawned under, so that an agent cannot spawn a helper to
// carry what it may not send, nor reach an agent through the helpers it
// spawned. It returns the names the entry matched.
func (r *Rules) forbiddenBy(from, to string) (f Forbidden, asFrom, asTo string, ok bool) {
	froms, tos := r.lineage(from), r.lineage(to)
	for _, f := range r.Forbidden {
		for _, a := range froms {
			if !matches(f.From, a) && !matches(f.From, r.role(a)) {
				continue
			}
			for _, b := range tos {
				if matches(f.To, b) || matches(f.To, r.role(b)) {
					return f, a, b, true
				}
			}
		}
	}
	return Forbidden{}, "", "", false
}

func (r *Rules) maySend(from, to string) (bool, string) {
	a, ok := r.Allowed[from]
	if !ok {
		if from == mailbox.Operator && !r.names(mailbox.Operator) {
			return true, "the operator may send to everyone (the rules do not name it)"
		}
		return false, r.at(0, "%s has no entry in allowed_interactions", from)
	}
	if n, ok := findName(a.CanSendTo, to); ok {
		return true, r.at(n.Line, "%s can_send_to %s", from, n.Value)
	}
	if to == mailbox.Operator && !r.names(mailbox.Operator) {
		return true, "everyone may send to the operator (the rules do not name it)"
	}
	return false, r.at(a.Line, "%s's can_send_to does not name %s", from, to)
}

func (r *Rules) mayReceive(to, from string) (bool, string) {
	a, ok := r.Allowed[to]
	if !ok {
		if to == mailbox.Operator && !r.names(mailbox.Operator) {
			return true, "the operator hears from everyone (the rules do not name it)"
		}
		return false, r.at(0, "%s has no entry in allowed_interactions", to)
	}
	if n, ok := findName(a.CanReceiveFrom, from); ok {
		return true, r.at(n.Line, "%s can_receive_from %s", to, n.Value)
	}
	if from == mailbox.Operator && !r.names(mailbox.Operator) {
		return true, "everyone hears from the operator (the rules do not name it)"
	}
	return false, r.at(a.Line, "%s's can_receive_from does not name %s", to, from)
}

func (r *Rules) at(line int, format string, args ...any) string {
	what := fmt.Sprintf(format, args...)
	if line == 0 {
		return fmt.Sprintf("%s: %s", r.Path, what)
	}
	return fmt.Sprintf("%s:%d: %s", r.Path, line, what)
}

func matches(pattern, agent string) bool {
	return pattern == Wildcard || pattern == agent
}

// Recipients expands a message's "to" list: "*" becomes every known agent
// but the sender (the operator only when the rules name it, so that a
// broadcast reaches the team, not the person).
func (r *Rules) Recipients(from string, to []string) []string {
	if len(to) != 1 || to[0] != mailbox.Broadcast {
		return to
	}
	var all []string
	for _, agent := range r.Agents() {
		if agent == from || (agent == mailbox.Operator && !r.names(mailbox.Operator)) {
			continue
		}
		all = append(all, agent)
	}
	return all
}

// Reachable is every agent of the team that from may send to, itself left
// out, sorted: the recipients a sender is offered.
func (r *Rules) Reachable(from string) []string {
	var out []string
	for _, to := range r.Agents() {
		if to != from && r.Decide(from, to).Allowed {
			out = append(out, to)
		}
	}
	return out
}
