package panes

import (
	"fmt"
	"strings"
	"testing"
)

func TestNoticeLineIsOneShortLine(t *testing.T) {
	names := map[string]string{"developer_agent": "Developer Agent"}
	display := func(agent string) string { return names[agent] }

	one := []announcement{{id: "01a", from: "developer_agent", title: "Review\nthe login\x1b change"}}
	if got, want := noticeLine(one, display), "[FROM: Developer Agent] Review the login change (switchboard read 01a)"; got != want {
		t.Errorf("one notice = %q; want %q: the title on one line, no control characters", got, want)
	}
	if got, want := interruptLine(one[0], display), "[INTERRUPT] [FROM: Developer Agent] Review the login change (switchboard read 01a)"; got != want {
		t.Errorf("interrupt = %q; want %q", got, want)
	}

	two := append(one, announcement{id: "01b", from: "developer_agent", title: "And tests"})
	if got := noticeLine(two, display); !strings.Contains(got, "(switchboard read 01a) | [FROM: Developer Agent] And tests (switchboard read 01b)") {
		t.Errorf("two notices = %q; want them merged with \" | \"", got)
	}

	var many []announcement
	for i := range 40 {
		many = append(many, announcement{id: fmt.Sprintf("id%02d", i), from: "developer_agent", title: "A message of a busy afternoon"})
	}
	got := noticeLine(many, display)
	if len(got) > maxNoticeLength+40 || !strings.Contains(got, "more: switchboard inbox") || !strings.HasPrefix(got, "[FROM: Developer Agent]") {
		t.Errorf("forty notices = %d bytes %q; want them cut under %d bytes, ending with how many more and where to see them", len(got), got, maxNoticeLength)
	}
}
