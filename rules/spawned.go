package rules

import (
	"maps"
	"slices"
	"sort"
)

// Spawned is an agent started at run time, as the rules see it: the
// profile it was started from, and the agent that started it.
type Spawned struct {
	Profile string `json:"profile"`
	Parent  string `json:"parent"`
}

// WithSpawned returns the rules extended with agents started at run time.
// A spawned agent is matched by its own name when the file names it, else
// by its profile's name; and it may talk with its parent, both ways, unless
// a forbidden entry says otherwise.
func (r *Rules) WithSpawned(spawned map[string]Spawned) *Rules {
	return &Rules{
		Path: r.Path, Allowed: r.Allowed, Forbidden: r.Forbidden,
		Oversight: r.Oversight, Interrupts: r.Interrupts,
		spawned: maps.Clone(spawned),
	}
}

// Parent returns the agent that spawned agent, if one did.
func (r *Rules) Parent(agent string) (string, bool) {
	s, ok := r.spawned[agent]
	return s.Parent, ok && s.Parent != ""
}

// Children returns the agents agent spawned, sorted.
func (r *Rules) Children(agent string) []string {
	var out []string
	for name, s := range r.spawned {
		if s.Parent == agent {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// role is the name the file's entries match an agent by: its own when the
// file names it, else, for a spawned agent, its profile's.
func (r *Rules) role(agent string) string {
	if s, ok := r.spawned[agent]; ok && !r.names(agent) && s.Profile != "" {
		return s.Profile
	}
	return agent
}

// family reports whether one of the two spawned the other.
func (r *Rules) family(a, b string) bool {
	if s, ok := r.spawned[a]; ok && s.Parent == b {
		return true
	}
	s, ok := r.spawned[b]
	return ok && s.Parent == a
}

// lineage is the agent and the agents it was spawned under, nearest first.
func (r *Rules) lineage(agent string) []string {
	out := []string{agent}
	for len(out) <= len(r.spawned) {
		parent, ok := r.Parent(out[len(out)-1])
		if !ok || slices.Contains(out, parent) {
			break
		}
		out = append(out, parent)
	}
	return out
}

// IsSpawned reports whether agent was started at run time.
func (r *Rules) IsSpawned(agent string) bool {
	_, ok := r.spawned[agent]
	return ok
}
