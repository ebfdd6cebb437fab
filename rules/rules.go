package rules

import (
	"slices"
	"sort"
	"strings"
	"sync"

	"switchboard/mailbox"
)

// Wildcard in a rule stands for every agent.
const Wildcard = "*"

// Rules is a loaded rules file.
type Rules struct {
	Path       string
	Allowed    map[string]*Allow
	Forbidden  []Forbidden
	Oversight  []Name
	Interrupts []Name // nil when the file leaves it out: the oversight list applies

	spawned map[string]Spawned // agents started at run time, by name

	team     sync.Once // Agents is computed once: the master asks per recipient
	agents   []string
	agentSet map[string]bool
}

// Name is an agent name and where it was written.
type Name struct {
	Value string
	Line  int
}

// Allow is one agent's entry in allowed_interactions.
type Allow struct {
	Line           int
	CanSendTo      []Name
	CanReceiveFrom []Name
}

// Forbidden is one entry of forbidden_interactions.
type Forbidden struct {
	Line   int
	From   string
	To     string
	Reason string

	fromLine, toLine int // where each end is written, for an error about its name
}

// Agents returns every agent the rules name, sorted, without "*". The
// operator is included: it is always part of the team.
func (r *Rules) Agents() []string {
	r.team.Do(r.collectAgents)
	return slices.Clone(r.agents)
}

// AgentCount is how many agents the team has; the operator, whom every
// team has, is not counted.
func (r *Rules) AgentCount() int {
	r.team.Do(r.collectAgents)
	return len(r.agents) - 1
}

func (r *Rules) collectAgents() {
	set := map[string]bool{mailbox.Operator: true}
	add := func(names []Name) {
		for _, n := range names {
			if n.Value != Wildcard {
				set[n.Value] = true
			}
		}
	}
	for name, a := range r.Allowed {
		set[name] = true
		add(a.CanSendTo)
		add(a.CanReceiveFrom)
	}
	for _, f := range r.Forbidden {
		add([]Name{{Value: f.From}, {Value: f.To}})
	}
	add(r.Oversight)
	add(r.Interrupts)
	for name := range r.spawned {
		set[name] = true
	}
	agents := make([]string, 0, len(set))
	for name := range set {
		agents = append(agents, name)
	}
	sort.Strings(agents)
	r.agents, r.agentSet = agents, set
}

// Knows reports whether agent is part of the team.
func (r *Rules) Knows(agent string) bool {
	r.team.Do(r.collectAgents)
	return r.agentSet[agent]
}

// IsOverseer reports whether agent may read every message and change the
// bulletin's status. The operator is, unless the rules name it.
func (r *Rules) IsOverseer(agent string) bool {
	if IsPersonElsewhere(agent) {
		return r.grantedToOperator(r.Oversight)
	}
	agent = r.role(agent)
	if agent == mailbox.Operator && !r.names(mailbox.Operator) {
		return true
	}
	return hasName(r.Oversight, agent)
}

// MayInterrupt reports whether agent may interrupt others: the interrupts
// list, or the oversight list when the file has no interrupts list.
func (r *Rules) MayInterrupt(agent string) bool {
	if IsPersonElsewhere(agent) {
		if r.Interrupts == nil {
			return r.grantedToOperator(r.Oversight)
		}
		return r.grantedToOperator(r.Interrupts)
	}
	agent = r.role(agent)
	if r.Interrupts == nil {
		return r.IsOverseer(agent)
	}
	if agent == mailbox.Operator && !r.names(mailbox.Operator) {
		return true
	}
	return hasName(r.Interrupts, agent)
}

// names reports whether the file mentions agent anywhere.
func (r *Rules) names(agent string) bool {
	if _, ok := r.Allowed[agent]; ok {
		return true
	}
	for _, a := range r.Allowed {
		if hasName(a.CanSendTo, agent) || hasName(a.CanReceiveFrom, agent) {
			return true
		}
	}
	for _, f := range r.Forbidden {
		if f.From == agent || f.To == agent {
			return true
		}
	}
	return hasName(r.Oversight, agent) || hasName(r.Interrupts, agent)
}

func hasName(names []Name, agent string) bool {
	for _, n := range names {
		if n.Value == agent {
			return true
		}
	}
	return false
}

func findName(names []Name, agent string) (Name, bool) {
	for _, n := range names {
		if n.Value == agent || n.Value == Wildcard {
			return n, true
		}
	}
	return Name{}, false
}

// OversightNames is the oversight list as the rules write it, for a
// sentence: "master_agent, lead", or "none named".
func (r *Rules) OversightNames() string {
	var names []string
	for _, n := range r.Oversight {
		names = append(names, n.Value)
	}
	if len(names) == 0 {
		return "none named"
	}
	return strings.Join(names, ", ")
}

// Overseers names the agents the rules give oversight, the wildcard left
// out: those told when an agent steps outside the rules. It is the operator
// alone when the rules name none.
func (r *Rules) Overseers() []string {
	var out []string
	for _, n := range r.Oversight {
		if n.Value != Wildcard && !slices.Contains(out, n.Value) {
			out = append(out, n.Value)
		}
	}
	if len(out) == 0 {
		out = []string{mailbox.Operator}
	}
	return out
}
