package rules

import (
	"errors"
	"maps"
	"slices"

	"switchboard/mailbox"
)

// What an agent may do besides sending, beyond IsOverseer and MayInterrupt.

// IsAncestor reports whether a spawned b, directly or through its children.
// No agent is its own ancestor, not even in a registry whose parents loop
// (ParentLoops).
func (r *Rules) IsAncestor(a, b string) bool {
	seen := map[string]bool{b: true}
	for {
		parent, ok := r.Parent(b)
		if !ok || seen[parent] {
			return false
		}
		if parent == a {
			return true
		}
		seen[parent] = true
		b = parent
	}
}

// ParentLoops lists, sorted, the spawned agents whose chain of parents
// comes back to them: a registry edited by hand, which no spawn writes.
func (r *Rules) ParentLoops() []string {
	var out []string
	for name := range r.spawned {
		seen := map[string]bool{}
		for b := name; ; {
			parent, ok := r.Parent(b)
			if !ok || seen[parent] {
				break
			}
			if parent == name {
				out = append(out, name)
				break
			}
			seen[parent] = true
			b = parent
		}
	}
	slices.Sort(out)
	return out
}

// MayInterruptAgent reports whether actor may interrupt agent: the
// interrupters may interrupt anyone, and an agent the agents it spawned,
// directly or through its children.
func (r *Rules) MayInterruptAgent(actor, agent string) bool {
	return r.MayInterrupt(actor) || r.IsAncestor(actor, agent)
}

// MayClose reports whether actor may close agent: its ancestors and the
// overseers may.
func (r *Rules) MayClose(actor, agent string) bool {
	return r.IsOverseer(actor) || r.IsAncestor(actor, agent)
}

// Why an agent may not spawn.
var (
	// ErrPrivilegedProfile: the profile's agents oversee or interrupt the
	// team, and only an overseer may start more of them.
	ErrPrivilegedProfile = errors.New("the profile's agents oversee or interrupt the team")
	// ErrOtherParent: an agent spawns for itself; only overseers start
	// agents under another.
	ErrOtherParent = errors.New("an agent spawns for itself only")
)

// MaySpawn says whether actor may start an agent from profile under parent,
// and when not, why (ErrPrivilegedProfile, ErrOtherParent).
func (r *Rules) MaySpawn(actor, profile, parent string) error {
	if (r.IsOverseer(profile) || r.MayInterrupt(profile)) && !r.IsOverseer(actor) {
		return ErrPrivilegedProfile
	}
	if parent != actor && !r.IsOverseer(actor) {
		return ErrOtherParent
	}
	return nil
}

// HelperAnswer decides whether an agent spawned as name, from the profile
// and under the parent s says, could send its answer to its parent: a
// helper kept from the one that waits for it is spawned for nothing, and
// its spawn is refused.
func (r *Rules) HelperAnswer(name string, s Spawned) Decision {
	spawned := maps.Clone(r.spawned)
	if spawned == nil {
		spawned = make(map[string]Spawned, 1)
	}
	spawned[name] = s
	return r.WithSpawned(spawned).Decide(name, s.Parent)
}

// MayChangeBulletin reports whether agent may change the bulletin's status,
// phase and warnings: the overseers may (and the operator, who oversees
// unless the rules say otherwise).
func (r *Rules) MayChangeBulletin(agent string) bool { return r.IsOverseer(agent) }

// MayRead reports whether agent may read a logged message: overseers read
// every one, others those they sent or received.
func (r *Rules) MayRead(agent string, rec *mailbox.Record) bool {
	return r.IsOverseer(agent) || rec.Involves(agent)
}
