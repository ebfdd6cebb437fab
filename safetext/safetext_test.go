package safetext

import "testing"

func TestEscapesAreShownNotSent(t *testing.T) {
	for _, tt := range []struct{ in, line, text string }{
		{"plain title", "plain title", "plain title"},
		{"\x1b[2J\x1b]0;pwned\x07", `\x1b[2J\x1b]0;pwned\x07`, `\x1b[2J\x1b]0;pwned\x07`},
		{"two\nlines\tand tab", `two\nlines\x09and tab`, "two\nlines\tand tab"},
		{"evil\u202egnp.exe", `evil\u202egnp.exe`, `evil\u202egnp.exe`},
		{"café ☕", "café ☕", "café ☕"},
	} {
		if got := Line(tt.in); got != tt.line {
			t.Errorf("Line(%q) = %q; want %q", tt.in, got, tt.line)
		}
		if got := Text(tt.in); got != tt.text {
			t.Errorf("Text(%q) = %q; want %q", tt.in, got, tt.text)
		}
	}
}
