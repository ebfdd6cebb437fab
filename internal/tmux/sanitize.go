package tmux

import (
	"strings"
	"unicode"
)

// Sanitize makes text safe to type into a pane: control characters
// (including ESC, which would start a key sequence, and newlines, each of
// which would submit) and invisible format characters (bidi controls that
// reorder text on screen, zero-width ones, tags that smuggle text past the
// eye) become spaces, runs of spaces collapse, and the ends are trimmed.
// What remains is one line.
func Sanitize(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	space := false
	for _, r := range text {
		if unicode.IsControl(r) || unicode.IsSpace(r) || r == '\u2028' || r == '\u2029' || r == unicode.ReplacementChar || unicode.Is(unicode.Cf, r) {
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
