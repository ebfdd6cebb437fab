package console

import "switchboard/desk"

// asTree orders agents under their parents, depth first: among siblings,
// those that need you (or whose helpers do) first, then in the team's
// order.
func asTree(agents []Agent) []Agent {
	places := desk.Tree(agents, func(a Agent) string { return a.Name }, func(a Agent) string { return a.Parent }, Agent.NeedsYou)
	out := make([]Agent, len(places))
	for i, p := range places {
		out[i] = agents[p.Index]
		out[i].Depth = p.Depth
	}
	return out
}
