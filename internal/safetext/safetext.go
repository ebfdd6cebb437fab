package safetext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line is s as one printable line: newlines are shown as \n too.
func Line(s string) string { return escape(s, false) }

// Short is s as one printable line (Line) of at most n characters, cut
// with an ellipsis: a name or a reason from someone who may have made it
// long on purpose.
func Short(s string, n int) string {
	s = Line(s)
	if n <= 0 || len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// Text is s as printable text that keeps its lines and tabs.
func Text(s string) string { return escape(s, true) }

func escape(s string, lines bool) string {
	if !needsEscape(s, lines) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case lines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case unsafe(r):
			switch {
			case r < 0x100:
				fmt.Fprintf(&b, `\x%02x`, r)
			case r <= 0xffff:
				fmt.Fprintf(&b, `\u%04x`, r)
			default:
				fmt.Fprintf(&b, `\U%08x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func needsEscape(s string, lines bool) bool {
	for _, r := range s {
		if unsafe(r) && !(lines && (r == '\n' || r == '\t')) {
			return true
		}
	}
	return false
}

// unsafe reports the characters a terminal acts on or hides: controls, the
// line and paragraph separators, and the invisible format characters (bidi
// controls that reorder a line, zero-width spaces and joiners, the soft
// hyphen, the byte order mark, and the tag characters that smuggle text
// past a reader's eye).
func unsafe(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Cf, r)
}

// ShellWord quotes a word for sh, leaving plain words as they are: what a
// hint prints to be run, or a command line built for a shell to split.
func ShellWord(word string) string {
	if word != "" && strings.Trim(word, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") == "" {
		return word
	}
	return "'" + strings.ReplaceAll(word, "'", `'\''`) + "'"
}
