package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"switchboard/bulletin"
	"switchboard/desk"
)

// hostile is text an agent may write into the bulletin by hand: a window
// title and a clear screen, a bell, and a bidi override that reorders the
// line on screen.
const hostile = "\x1b]0;OWNED\x07\x1b[2J\u202eevil"

// plantBulletin writes the bulletin of env's workspace by hand, as any
// agent may: 5,000 long warnings, and hostile senders, holders, reasons,
// resource names and agent names, none of them through the bulletin's
// own checks.
func plantBulletin(t *testing.T, env Env) {
	t.Helper()
	at := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	var warnings []map[string]any
	for i := range 5000 {
		warnings = append(warnings, map[string]any{"text": fmt.Sprintf("w%d %s %s", i, hostile, strings.Repeat("x", 500)), "from": hostile, "at": at})
	}
	locks := map[string]any{
		"a-long " + hostile: map[string]any{"holder": hostile, "reason": hostile + strings.Repeat("y", 5000), "since": at},
		"res000":            map[string]any{"holder": hostile, "reason": "r", "since": at},
	}
	doc := map[string]any{
		"system_status": "normal", "current_phase": hostile + "\nsecond line", "active_agents": []string{},
		"warnings": warnings, "shared_resources": locks,
		"agents": map[string]any{hostile: map[string]any{"state": hostile, "unread": 1, "urgent": 0}},
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	store := bulletin.Of(env.Workspace)
	if err := store.Ensure(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(store.Path(), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// unsafeShown reports the first character of out that a terminal would act
// on or that would reorder what a person reads, if any.
func unsafeShown(out string) (string, bool) {
	for _, c := range []string{"\x1b", "\x07", "\u202e"} {
		if strings.Contains(out, c) {
			return c, true
		}
	}
	return "", false
}

// TestAPlantedBulletinIsShownEscapedAndBounded: a bulletin written by hand
// with thousands of long warnings, and terminal escapes in every name,
// is shown by the status box, the status line and the hooks escaped and
// small, its newest warnings shown and the others counted.
func TestAPlantedBulletinIsShownEscapedAndBounded(t *testing.T) {
	env := team(t)
	plantBulletin(t, env)
	st, err := desk.ReadStatus(env.Workspace, env.Agent)
	if err != nil {
		t.Fatal(err)
	}
	var prompt bytes.Buffer
	if err := Prompt(&prompt, env, true); err != nil {
		t.Fatal(err)
	}
	claude := runHook(t, env, `{"hook_event_name":"UserPromptSubmit","prompt":"go on"}`)["hookSpecificOutput"].(map[string]any)["additionalContext"].(string)
	for name, out := range map[string]string{
		"box": StatusBox(st, true), "ascii box": StatusBox(st, false), "line": StatusLine(st, true),
		"shell prompt": prompt.String(), "claude prompt": claude,
	} {
		if c, bad := unsafeShown(out); bad {
			t.Errorf("the %s holds a raw %q", name, c)
		}
		if len(out) > 20<<10 {
			t.Errorf("the %s is %d bytes", name, len(out))
		}
	}
	box := StatusBox(st, false)
	for _, want := range []string{
		`Phase: \x1b]0;OWNED\x07\x1b[2J\u202eevil second line`,
		"(4936 older warnings not shown)",
		`Warning (\x1b]0;OWNED\x07\x1b[2J\u202eevil): w4999 `,
		`Locked: a-long \x1b]0;OWNED\x07\x1b[2J\u202eevil by \x1b]0;OWNED\x07\x1b[2J\u202eevil (\x1b]0;OWNED\x07\x1b[2J\u202eevilyyy`,
		`Locked: res000 by \x1b]0;OWNED\x07\x1b[2J\u202eevil (r)`,
	} {
		if !strings.Contains(box, want) {
			t.Errorf("the box lacks %q", want)
		}
	}
	if strings.Contains(box, "w4935 ") || strings.Count(box, "Warning (") != 64 {
		t.Errorf("the box shows %d warnings; want the newest 64", strings.Count(box, "Warning ("))
	}
	if long := box[strings.Index(box, "Locked: a-long"):strings.Index(box, "Locked: res000")]; len(long) > 400 {
		t.Errorf("a lock's line is %d bytes", len(long))
	}
	if line := StatusLine(st, false); !strings.HasSuffix(line, `| Phase: \x1b]0;OWNED\x07\x1b[2J\u202eevil second line | 5000 warnings`) {
		t.Errorf("the status line is %q", line)
	}
}

// TestTheBoxShowsTheLocksABulletinMayHold: a bulletin edited by hand to
// hold more locks than MaxLocks shows that many, and counts the others.
func TestTheBoxShowsTheLocksABulletinMayHold(t *testing.T) {
	b := bulletin.New()
	for i := range bulletin.MaxLocks + 44 {
		b.SharedResources[fmt.Sprintf("res%03d", i)] = bulletin.Lock{Holder: "developer_agent"}
	}
	box := StatusBox(&desk.Status{Agent: "developer_agent", Bulletin: b}, false)
	if n := strings.Count(box, "Locked: "); n != bulletin.MaxLocks || !strings.HasSuffix(box, "Locked: res255 by developer_agent\n(44 more locks not shown)\n") {
		t.Errorf("the box shows %d locks, and ends %q", n, box[len(box)-80:])
	}
}
