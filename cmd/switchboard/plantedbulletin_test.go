package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"switchboard/bulletin"
	"switchboard/profile"
	"switchboard/workspace"
)

// hostile is a name an agent may write into the bulletin or the shared
// state by hand: a window title, a clear screen, a bell, and a bidi
// override that reorders the line on screen. It is shown as escapedHostile.
const (
	hostile        = "\x1b]0;OWNED\x07\x1b[2J\u202eevil"
	escapedHostile = `\x1b]0;OWNED\x07\x1b[2J\u202eevil`
)

// plantBulletin writes the bulletin and the shared state of the workspace
// in root by hand, as any agent may: 5,000 long warnings, and terminal
// escapes in a warning's sender, a lock's holder and reason, an agent's
// name and state, a key and a value.
func plantBulletin(t *testing.T, root string) {
	t.Helper()
	at := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	var warnings []map[string]any
	for i := range 5000 {
		warnings = append(warnings, map[string]any{"text": fmt.Sprintf("w%d %s %s", i, hostile, strings.Repeat("x", 500)), "from": hostile, "at": at})
	}
	doc := map[string]any{
		"system_status": "normal", "current_phase": hostile, "active_agents": []string{}, "warnings": warnings,
		"shared_resources": map[string]any{"db": map[string]any{"holder": hostile, "reason": hostile, "since": at}},
		"agents":           map[string]any{hostile: map[string]any{"state": hostile, "unread": 1}},
	}
	store := bulletin.Of(workspace.New(root))
	if err := store.Ensure(); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(store.Path(), data, 0o600); err != nil {
		t.Fatal(err)
	}
	// A key with escapes, and a string holding a raw bidi override, which
	// is valid JSON.
	state := `{"` + strings.ReplaceAll(strings.ReplaceAll(hostile, "\x1b", `\u001b`), "\x07", `\u0007`) + `": "` + "\u202eevil" + `"}`
	if err := os.WriteFile(store.StatePath(), []byte(state), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestAPlantedBulletinIsPrintedEscapedAndSmall: whatever a bulletin
// written by hand holds, every command that prints it prints its names
// escaped, as message titles are, and the status box small; JSON keeps it
// exact.
func TestAPlantedBulletinIsPrintedEscapedAndSmall(t *testing.T) {
	root := t.TempDir()
	if _, err := profile.WriteDefaultTeam(root, false); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SWITCHBOARD_AGENT", "")
	t.Setenv("SWITCHBOARD_ROOT", root)
	plantBulletin(t, root)
	// The hook runs for an agent whose mailbox exists.
	if err := workspace.New(root).Store.Ensure("developer_agent"); err != nil {
		t.Fatal(err)
	}
	cmd := func(code int, args ...string) (stdout, stderr string) {
		t.Helper()
		var out, errOut bytes.Buffer
		if got := run(args, &streams{in: strings.NewReader(""), out: &out, errOut: &errOut}); got != code {
			t.Errorf("%q: exit %d (%s); want %d", args, got, errOut.String(), code)
		}
		for name, text := range map[string]string{"stdout": out.String(), "stderr": errOut.String()} {
			if strings.ContainsAny(text, "\x1b\x07\u202e") && !slices.Contains(args, "--json") {
				t.Errorf("%q prints a raw escape on %s: %.300q", args, name, text)
			}
		}
		return out.String(), errOut.String()
	}
	for _, c := range []struct {
		args []string
		want string // on stdout, or on stderr for the hook
		max  int    // bytes
	}{
		{[]string{"status", "--format", "box", "--as", "developer_agent"}, "Warning (" + escapedHostile + "): w4999 ", 20 << 10},
		{[]string{"status", "--format", "line", "--as", "developer_agent"}, "| Phase: " + escapedHostile + " | 5000 warnings", 1 << 10},
		{[]string{"hook", "prompt", "--as", "developer_agent"}, "Locked: db by " + escapedHostile + " (" + escapedHostile + ")", 20 << 10},
		{[]string{"bulletin"}, escapedHostile + " " + escapedHostile + " 1 new", 20 << 10},
		{[]string{"state", "list"}, escapedHostile + ` = "\u202eevil"`, 1 << 10},
		{[]string{"state", "get", hostile}, `"\u202eevil"`, 1 << 10},
		{[]string{"state", "set", "k" + hostile, "\u202eword"}, "k" + escapedHostile + ` = "\u202eword"`, 1 << 10},
	} {
		out, errOut := cmd(exitOK, c.args...)
		if c.args[0] == "hook" {
			out = errOut
		}
		if !strings.Contains(out, c.want) || len(out) > c.max {
			t.Errorf("%q printed %d bytes: %.600q\nwant at most %d, with %q", c.args, len(out), out, c.max, c.want)
		}
	}
	if out, _ := cmd(exitOK, "state", "list", "--json"); !strings.Contains(out, `"\u001b]0;OWNED\u0007\u001b[2J`+"\u202eevil\": \"\u202eevil\"") {
		t.Errorf("state list --json does not keep the key exact: %q", out)
	}

	// A lock's holder is named, escaped, wherever a refusal names it.
	held := "db is held by " + escapedHostile
	for _, args := range [][]string{
		{"lock", "db", "--as", "developer_agent"},
		{"unlock", "db", "--as", "developer_agent"},
		{"unlock", "db", "--force"},
	} {
		if _, errOut := cmd(exitRefused, args...); !strings.Contains(errOut, held) {
			t.Errorf("%q said %q; want %q", args, errOut, held)
		}
	}
	// An exited holder's lock is forced open, and its holder named.
	dir := filepath.Join(root, "mailboxes", hostile)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte(`{"state":"exited","source":"pane"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, _ := cmd(exitOK, "unlock", "db", "--force"); out != "db unlocked (held by "+escapedHostile+")\n" {
		t.Errorf("unlock --force printed %q", out)
	}
}
