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

func TestValidateAgentNameSaysWhy(t *testing.T) {
	tests := []struct{ name, want string }{
		{"", "agent name is empty"},
		{"Developer", `agent name "Developer" is not valid: use 1-63 lowercase letters, digits, _ or -`},
		{"dev.agent", `agent name "dev.agent" is not valid`},
		{"dev\n", `agent name "dev\n" is not valid`},
		{"ünïcode", `is not valid`},
		{"log", `agent name "log" is reserved`},
		{"switchboard", `agent name "switchboard" is reserved`},
		{"all", `agent name "all" is reserved`},
		{"global_bulletin", `agent name "global_bulletin" is reserved`},
	}
	for _, tt := range tests {
		err := ValidateAgentName(tt.name)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ValidateAgentName(%q) = %v; want an error saying %q", tt.name, err, tt.want)
		}
	}
}

func TestFileNameRoundTrip(t *testing.T) {
	cet := time.FixedZone("CET", 3600)
	tests := []struct {
		at       time.Time
		priority string
		name     string
	}{
		{time.Date(2026, 11, 22, 8, 57, 0, 123456789, time.UTC), PriorityUrgent, "20261122T085700.123456789Z_urgent_"},
		{time.Date(2026, 11, 22, 8, 57, 0, 0, time.UTC), PriorityNormal, "20261122T085700.000000000Z_normal_"},
		{time.Date(2026, 11, 22, 8, 57, 0, 5, time.UTC), PriorityLow, "20261122T085700.000000005Z_low_"},
		{time.Date(2026, 11, 22, 9, 57, 0, 500000000, cet), PriorityNormal, "20261122T085700.500000000Z_normal_"},
	}
	const id = "0193a7c2-1111-7000-8000-000000000001"
	for _, tt := range tests {
		name := FileName(tt.at, tt.priority, id)
		if want := tt.name + id + ".json"; name != want {
			t.Errorf("FileName(%v, %s) = %q; want %q", tt.at, tt.priority, name, want)
		}
		info, ok := ParseFileName(name)
		if !ok {
			t.Errorf("ParseFileName(%q) refused a name FileName wrote", name)
			continue
		}
		if info.Name != name || info.Priority != tt.priority || info.ID != id || !info.Time.Equal(tt.at) || info.Time.Location() != time.UTC {
			t.Errorf("ParseFileName(%q) = %+v; want %v (UTC), %s, %s", name, info, tt.at, tt.priority, id)
		}
	}
}

// Listing sorts names as strings; that order must be the order in time
// whatever the width of the fraction and the zone the time came in.
func TestFileNamesSortLikeTheirTimes(t *testing.T) {
	base := time.Date(2026, 11, 22, 8, 59, 59, 0, time.UTC)
	times := []time.Time{
		base.Add(time.Second),                     // 09:00:00.000000000
		base.Add(999999999),                       // 08:59:59.999999999
		base.Add(10),                              // .000000010
		base.Add(9),                               // .000000009
		base.Add(100 * time.Millisecond),          // .1
		base.Add(123456 * time.Microsecond),       // .123456
		base.In(time.FixedZone("UTC-10", -36000)), // 22:59:59 the day before, locally
		base.Add(-time.Hour).In(time.FixedZone("UTC+14", 14*3600)),
		time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	byName := make([]time.Time, len(times))
	copy(byName, times)
	sort.Slice(byName, func(i, j int) bool {
		return FileName(byName[i], PriorityNormal, "x") < FileName(byName[j], PriorityNormal, "x")
	})
	byTime := make([]time.Time, len(times))
	copy(byTime, times)
	sort.Slice(byTime, func(i, j int) bool { return byTime[i].Before(byTime[j]) })
	for i := range byName {
		if !byName[i].Equal(byTime[i]) {
			t.Fatalf("names sort as %v,\n times sort as %v", byName, byTime)
		}
	}
}

func TestParseFileNameRefusesOtherFiles(t *testing.T) {
	const good = "20261122T085700.123456789Z_normal_0193a7c2-1111-7000-8000-000000000001.json"
	if _, ok := ParseFileName(good); !ok {
		t.Fatalf("ParseFileName(%q) refused a delivered name", good)
	}
	for _, name := range []string{
		"." + good,      // a dotfile
		".tmp-4021337",  // a temporary of an atomic write
		good + ".tmp",   // not .json
		good + ".error", // the reason beside a rejected file
		"20261122T085700.123456789Z_high_0193a7c2.json", // no such priority
		"20261122T085700.123456789Z_normal_.json",       // no id
		"20261122T085700.123456789Z_normal.json",        // no id
		"20261122T085700.123Z_normal_x.json",            // short fraction
		"2026-11-22T08:57:00Z_normal_x.json",            // another time format
		"my-message.json",                               // dropped in an outbox by hand
		"",
	} {
		if info, ok := ParseFileName(name); ok {
			t.Errorf("ParseFileName(%q) = %+v; it is not a delivered message", name, info)
		}
	}
}
