package mailbox

import (
	"sort"
	"strings"
	"testing"
	"time"
)

func TestValidateAgentName(t *testing.T) {
	for _, good := range []string{"developer_agent", "a", "x-1", "0day", strings.Repeat("a", 63), "operator"} {
		if err := ValidateAgentName(good); err != nil {
			t.Errorf("ValidateAgentName(%q) = %v; want ok", good, err)
		}
	}
	for _, bad := range []string{"", "Dev", "-x", "_x", "a b", "a/b", "../x", strings.Repeat("a", 64), "log", "all", "switchboard", "global_bulletin"} {
		if err := ValidateAgentName(bad); err == nil {
			t.Errorf("ValidateAgentName(%q) accepted it", bad)
		}
	}
}

func TestFileNamesSortByTimeAndCarryThePriority(t *testing.T) {
	base := time.Date(2026, 11, 22, 8, 57, 0, 0, time.UTC)
	times := []time.Time{base.Add(2 * time.Second), base, base.Add(time.Nanosecond), base.Add(100 * time.Millisecond), base.Add(time.Hour)}
	var names []string
	for i, at := range times {
		names = append(names, FileName(at, []string{"urgent", "normal", "low"}[i%3], "01a20000-0000-7000-8000-00000000000"+string(rune('0'+i))))
	}
	sort.Strings(names)
	for i := 1; i < len(names); i++ {
		a, _ := ParseFileName(names[i-1])
		b, ok := ParseFileName(names[i])
		if !ok || !a.Time.Before(b.Time) {
			t.Errorf("names out of time order: %s before %s", names[i-1], names[i])
		}
	}
	info, ok := ParseFileName(FileName(base, "urgent", "01a20000-0000-7000-8000-000000000009"))
	if !ok || info.Priority != "urgent" || info.ID != "01a20000-0000-7000-8000-000000000009" || !info.Time.Equal(base) {
		t.Errorf("ParseFileName round trip = %+v, %v", info, ok)
	}
	for _, name := range []string{".tmp-123", "20261122T085700.000000000Z_high_x.json", "notes.json", "20261122T085700.000000000Z_normal_x.txt", "junk_normal_x.json"} {
		if _, ok := ParseFileName(name); ok {
			t.Errorf("ParseFileName(%q) took it for a message", name)
		}
	}
}
