package tmux

import (
	"context"
	"testing"
	"time"
)

func TestSanitizeLeavesOneSafeLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"[FROM: Developer Agent] Review (switchboard read 01a2)", "[FROM: Developer Agent] Review (switchboard read 01a2)"},
		{"first line\nrm -rf /\r\n", "first line rm -rf /"},
		{"\x1b[31mred\x1b[0m", "[31mred [0m"},
		{"tab\there  and   spaces", "tab here and spaces"},
		{"bell\x07 and del\x7f and c1\u009b", "bell and del and c1"},
		{"line\u2028separator", "line separator"},
		{"admin\u202eevil", "admin evil"},
		{"\x00\x01\x02", ""},
		{"  padded  ", "padded"},
		{"ünïcødé ✓", "ünïcødé ✓"},
	}
	for _, tt := range tests {
		if got := Sanitize(tt.in); got != tt.want {
			t.Errorf("Sanitize(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// TestDisplayRunsNothingATitleSays: a line shown on a pane's client is a
// tmux format; a title's #(...) would run a command in the tmux server, out
// of every pane's reach. Every # is doubled, so tmux shows it as it is, and
// invisible characters go too.
func TestDisplayRunsNothingATitleSays(t *testing.T) {
	stub := NewStubRunner(t)
	c := NewClient("test", stub)
	stub.Expect(StubCall{Match: "display-message -d 1000 -t %1 [FROM: Tester] ok ##(touch /tmp/pwned) ##{pane_id} ##[fg=red] x"})
	if err := c.Display(context.Background(), "%1", "[FROM: Tester] ok #(touch /tmp/pwned) #{pane_id} #[fg=red]\u200b\U000E0041x", time.Second); err != nil {
		t.Fatal(err)
	}
	useAll(stub)
}
