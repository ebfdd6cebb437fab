package safetext

import (
	"os/exec"
	"testing"
)

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

// TestInvisibleCharactersAreShown: zero-width characters, the soft hyphen,
// the byte order mark and tag characters, which hide text from a person
// while a model reads it, are shown escaped.
func TestInvisibleCharactersAreShown(t *testing.T) {
	in := "ok\u200b\u2060\ufeff\u00ad\U000E0049\U000E0047\U000E004E"
	want := `ok\u200b\u2060\ufeff\xad\U000e0049\U000e0047\U000e004e`
	if got := Line(in); got != want {
		t.Errorf("Line(%q) = %q; want %q", in, got, want)
	}
}

func TestShellWordSurvivesTheShell(t *testing.T) {
	for _, word := range []string{"plain", "two words", "it's", `a"b`, "$HOME", "", "semi;colon", "/w/x.y"} {
		out, err := exec.Command("sh", "-c", "printf %s "+ShellWord(word)).Output()
		if err != nil || string(out) != word {
			t.Errorf("quoted %q came back as %q (%v)", word, out, err)
		}
	}
}
