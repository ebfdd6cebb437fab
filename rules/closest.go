package rules

import (
	"maps"
	"slices"

	"switchboard/internal/spelling"
)

// Closest is the agent of the team whose name is nearest to name, for a
// "did you mean" after a typo; false when none is near enough.
func (r *Rules) Closest(name string) (string, bool) { return spelling.Nearest(name, r.Agents()) }

// closestEntry is like Closest, among the agents with an entry in
// allowed_interactions: what a name without one was likely meant to be.
func (r *Rules) closestEntry(name string) (string, bool) {
	return spelling.Nearest(name, slices.Sorted(maps.Keys(r.Allowed)))
}
