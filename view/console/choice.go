package console

import "slices"

// choice is the row the person chose in a panel, held by a key that stays
// with it (an agent's name, a question's id) however the rows are ordered
// next: a re-sort, a refresh or a filter moves the cursor with it, and the
// keys act on it or on nothing, never on whatever row took its place.
type choice struct {
	key string // "" until the panel first has a row
	row int    // where key stands, or stood before it left
	// gone says that key is no longer among the rows: nothing is chosen
	// until the person moves.
	gone bool
}

// follow finds the choice among the rows' keys of a new snapshot. The
// first row is chosen only when nothing was yet: a choice that leaves
// stays gone rather than fall to another row.
func (c *choice) follow(keys []string) {
	if c.key == "" {
		if len(keys) > 0 {
			c.key, c.row = keys[0], 0
		}
		return
	}
	if i := slices.Index(keys, c.key); i >= 0 {
		c.row, c.gone = i, false
		return
	}
	c.gone = true
}

// move chooses the row by rows away. From a choice that left, down
// chooses the row that now stands where it stood, up the one above.
func (c *choice) move(by int, keys []string) {
	if len(keys) == 0 {
		return
	}
	row := c.row + by
	if c.gone && by > 0 {
		row = c.row
	}
	row = clamp(row, len(keys))
	c.key, c.row, c.gone = keys[row], row, false
}

// chosen is the key the keys act on: "" when nothing is chosen.
func (c *choice) chosen() string {
	if c.gone {
		return ""
	}
	return c.key
}

// cursor is the row to mark: -1 when nothing is chosen.
func (c *choice) cursor() int {
	if c.gone || c.key == "" {
		return -1
	}
	return c.row
}

func clamp(i, n int) int { return max(0, min(i, n-1)) }
