package desk

import (
	"cmp"
	"slices"
)

// Place is an item's place in the team's tree: its index in the list
// given, its depth under the roots, and the branch drawn before it
// ("├─ ", "│  └─ ").
type Place struct {
	Index  int
	Depth  int
	Branch string
}

// Tree places items under their parents, depth first: an item whose parent
// (parentOf) is not among them, or that only a loop of parents reaches, is
// a root. Siblings keep their order, but those first holds for (or that
// have a descendant it holds for) come before the others; first may be
// nil.
func Tree[T any](items []T, nameOf, parentOf func(T) string, first func(T) bool) []Place {
	index := make(map[string]int, len(items))
	for i, it := range items {
		index[nameOf(it)] = i
	}
	children := make(map[int][]int)
	var roots []int
	for i, it := range items {
		if p, ok := index[parentOf(it)]; ok && p != i {
			children[p] = append(children[p], i)
		} else {
			roots = append(roots, i)
		}
	}
	// ahead: the item, or one below it, is to come first.
	ahead := make(map[int]bool)
	var mark func(i int, seen map[int]bool) bool
	mark = func(i int, seen map[int]bool) bool {
		if seen[i] {
			return ahead[i]
		}
		seen[i] = true
		a := first != nil && first(items[i])
		for _, c := range children[i] {
			a = mark(c, seen) || a
		}
		ahead[i] = a
		return a
	}
	seen := make(map[int]bool)
	for i := range items {
		mark(i, seen)
	}
	order := func(list []int) []int {
		list = slices.Clone(list)
		slices.SortStableFunc(list, func(a, b int) int {
			if ahead[a] != ahead[b] {
				if ahead[a] {
					return -1
				}
				return 1
			}
			return cmp.Compare(a, b)
		})
		return list
	}
	out := make([]Place, 0, len(items))
	placed := make(map[int]bool)
	var walk func(i, depth int, branch, lead string)
	walk = func(i, depth int, branch, lead string) {
		if placed[i] {
			return
		}
		placed[i] = true
		out = append(out, Place{Index: i, Depth: depth, Branch: branch})
		kids := order(children[i])
		for k, c := range kids {
			branch, below := "├─ ", "│  "
			if k == len(kids)-1 {
				branch, below = "└─ ", "   "
			}
			walk(c, depth+1, lead+branch, lead+below)
		}
	}
	for _, r := range order(roots) {
		walk(r, 0, "", "")
	}
	for i := range items { // those only a loop of parents reaches
		walk(i, 0, "", "")
	}
	return out
}
