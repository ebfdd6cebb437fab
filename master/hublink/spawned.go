package hublink

import (
	"fmt"
	"maps"
	"slices"

	"switchboard/mailbox"
	"switchboard/rules"
	"switchboard/workspace"
)

// The agents other hosts spawn at run time are known to this host's rules
// by what their claims say: the profile they were spawned from, and their
// parent. A host could say anything there: a profile that oversees the
// team, a parent on another host whose family then walks around a
// forbidden entry, a name this host runs. So a helper is taken in only as
// a spawn here would be: a name no rule and no agent of this host has, a
// parent the rules know that runs on the same host (or the person there),
// and a profile the rules let that parent spawn.

// spawnVerdicts are the helpers of other hosts this host's rules take in,
// and those refused, each with the reason.
type spawnVerdicts struct {
	admitted map[string]workspace.Spawned
	refused  map[string]string
}

// judgeSpawned decides on the helpers other hosts announced. file is the
// rules file alone, local the helpers spawned here, here tells whether an
// agent runs on this host, and team is the team as the hub shows it (the
// host that holds each agent).
func judgeSpawned(file *rules.Rules, local map[string]workspace.Spawned, here func(string) bool, team workspace.HubTeam) spawnVerdicts {
	v := spawnVerdicts{admitted: make(map[string]workspace.Spawned), refused: make(map[string]string)}
	hostOf := make(map[string]string, len(team.Members))
	var asked []workspace.HubMember
	for _, m := range team.Members {
		hostOf[m.Agent] = m.Host
		if m.Host != team.Host && m.Profile != "" {
			asked = append(asked, m)
		}
	}
	seen := make(map[string]rules.Spawned, len(local))
	for name, s := range local {
		seen[name] = rules.Spawned{Profile: s.Profile, Parent: s.Parent}
	}
	// A helper's parent may be a helper of the same host: taken in over
	// passes, parents first; what is left at the end is refused.
	for progress := true; progress; {
		progress = false
		r := file.WithSpawned(seen)
		for _, m := range asked {
			if _, done := v.admitted[m.Agent]; done {
				continue
			}
			reason, later := judgeOne(r, here, hostOf, m)
			if reason != "" {
				v.refused[m.Agent] = reason
				continue
			}
			if later {
				continue
			}
			parent := m.Parent
			if parent == mailbox.Operator {
				parent = rules.PersonAt(m.Host)
			}
			v.admitted[m.Agent] = workspace.Spawned{Profile: m.Profile, Parent: parent}
			seen[m.Agent] = rules.Spawned{Profile: m.Profile, Parent: parent}
			delete(v.refused, m.Agent)
			progress = true
		}
	}
	for _, m := range asked {
		if _, ok := v.admitted[m.Agent]; !ok && v.refused[m.Agent] == "" {
			v.refused[m.Agent] = fmt.Sprintf("its parent %s is no agent the rules know", m.Parent)
		}
	}
	return v
}

// judgeOne decides on one helper under the rules r: a reason when it is
// refused, or later when its parent is a helper not taken in yet.
func judgeOne(r *rules.Rules, here func(string) bool, hostOf map[string]string, m workspace.HubMember) (reason string, later bool) {
	switch {
	case here(m.Agent):
		return fmt.Sprintf("%s runs on this host", m.Agent), false
	case r.Knows(m.Agent) && !r.IsSpawned(m.Agent):
		return fmt.Sprintf("%s is an agent of the rules, not a helper", m.Agent), false
	case m.Parent == "":
		return "it names no parent", false
	}
	actor := m.Parent
	if m.Parent == mailbox.Operator {
		actor = rules.PersonAt(m.Host)
	} else {
		if hostOf[m.Parent] != m.Host {
			return fmt.Sprintf("its parent %s does not run on host %s", m.Parent, m.Host), false
		}
		if !r.Knows(m.Parent) {
			return "", true
		}
	}
	if err := r.MaySpawn(actor, m.Profile, actor); err != nil {
		return fmt.Sprintf("the rules do not let %s spawn from profile %s: %v", m.Parent, m.Profile, err), false
	}
	return "", false
}

// sameSpawned reports whether two sets of helpers are the same.
func sameSpawned(a, b map[string]workspace.Spawned) bool {
	return maps.EqualFunc(a, b, func(x, y workspace.Spawned) bool { return x.Profile == y.Profile && x.Parent == y.Parent })
}

// refusedNames lists the refused helpers, sorted.
func (v spawnVerdicts) refusedNames() []string { return slices.Sorted(maps.Keys(v.refused)) }
