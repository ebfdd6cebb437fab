package rules

import (
	"fmt"
	"maps"
	"slices"
)

// Warnings lists what is valid but probably a mistake: an allow that the
// other side does not match, so that no message can ever pass that way (as
// in a team where the tester may write to the developer but the developer
// does not hear from the tester), and agents named only as peers.
func (r *Rules) Warnings() []string {
	var warnings []string
	for _, from := range slices.Sorted(maps.Keys(r.Allowed)) {
		a := r.Allowed[from]
		for _, to := range a.CanSendTo {
			if to.Value == Wildcard || r.forbids(from, to.Value) {
				continue
			}
			if ok, _ := r.mayReceive(to.Value, from); !ok {
				warnings = append(warnings, r.at(to.Line, "%s may send to %s, but %s does not accept messages from %s: nothing can pass", from, to.Value, to.Value, from))
			}
		}
		for _, peer := range a.CanReceiveFrom {
			if peer.Value == Wildcard || r.forbids(peer.Value, from) {
				continue
			}
			if ok, _ := r.maySend(peer.Value, from); !ok {
				warnings = append(warnings, r.at(peer.Line, "%s accepts messages from %s, but %s may not send to %s: nothing can pass", from, peer.Value, peer.Value, from))
			}
		}
	}
	for _, agent := range r.Agents() {
		if _, spawned := r.Parent(agent); spawned {
			continue // matched by its profile's entry
		}
		if _, ok := r.Allowed[agent]; !ok && agent != "operator" {
			w := fmt.Sprintf("%s: %s is named but has no entry in allowed_interactions, so it can neither send nor receive", r.Path, agent)
			if near, ok := r.closestEntry(agent); ok {
				w += fmt.Sprintf("; did you mean %s?", near)
			}
			warnings = append(warnings, w)
		}
	}
	return warnings
}

func (r *Rules) forbids(from, to string) bool {
	for _, f := range r.Forbidden {
		if matches(f.From, from) && matches(f.To, to) {
			return true
		}
	}
	return false
}
