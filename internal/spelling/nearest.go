package spelling

// Nearest is the first of words nearest to word, for a "did you mean"
// after a typo; false when none is near enough. Near enough is a third of
// the word's letters, and one more, changed, added, dropped or swapped.
func Nearest(word string, words []string) (string, bool) {
	best, bestDist := "", len([]rune(word))/3+2
	for _, w := range words {
		if d := Distance(word, w); d < bestDist {
			best, bestDist = w, d
		}
	}
	return best, best != ""
}

// Distance is the number of single-letter insertions, deletions,
// substitutions and swaps of neighbours that turn a into b.
func Distance(a, b string) int {
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
