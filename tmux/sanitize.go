package tmux

import (
	"strings"
	"unicode"
)

// Sanitize makes text safe to type into a pane: control characters
// (including ESC, which would start a key sequence, and newlines, each of
// which would submit) become spaces, runs of spaces collapse, and the ends
// are trimmed. What remains is one line.
func Sanitize(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	space := false
	for _, r := range text {
		if unicode.IsControl(r) || unicode.IsSpace(r) || r == '\u2028' || r == '\u2029' || r == unicode.ReplacementChar || isBidiControl(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isBidiControl reports the invisible characters that reorder text on
// screen, so that what an agent sees differs from what was typed.
func isBidiControl(r rune) bool {
	return (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069') || r == '\u200e' || r == '\u200f'
}
