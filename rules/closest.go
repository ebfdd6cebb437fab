package rules

import (
	"maps"
	"slices"
)

// Closest is the agent of the team whose name is nearest to name, for a
// "did you mean" after a typo; false when none is near enough.
func (r *Rules) Closest(name string) (string, bool) { return closest(name, r.Agents()) }

// closestEntry is like Closest, among the agents with an entry in
// allowed_interactions: what a name without one was likely meant to be.
func (r *Rules) closestEntry(name string) (string, bool) {
	return closest(name, slices.Sorted(maps.Keys(r.Allowed)))
}

// closest is the first of names nearest to name, when near enough.
func closest(name string, names []string) (string, bool) {
	best, bestDist := "", len(name)/3+2
	for _, n := range names {
		if d := editDistance(name, n); d < bestDist {
			best, bestDist = n, d
		}
	}
	return best, best != ""
}

// editDistance is the number of single-letter insertions, deletions,
// substitutions and swaps of neighbours that turn a into b.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	// rows[i][j] is the distance between x[:i] and y[:j]; three rows kept.
	prev2, prev, cur := make([]int, len(y)+1), make([]int, len(y)+1), make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(y)]
}
