package console

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"switchboard/bulletin"
	"switchboard/desk"
	"switchboard/profile"
	"switchboard/rules"
	"switchboard/workspace"
)

// TestAPlantedBulletinIsShownBoundedAndEscaped: a bulletin written by hand
// with 5,000 warnings full of terminal escapes gives the console (and the
// web view, which draws the same snapshot) the newest warnings, the others
// counted, and a frame that sends the terminal none of the escapes.
func TestAPlantedBulletinIsShownBoundedAndEscaped(t *testing.T) {
	root := t.TempDir()
	if _, err := profile.WriteDefaultTeam(root, false); err != nil {
		t.Fatal(err)
	}
	ws := workspace.New(root)
	b := bulletin.New()
	b.CurrentPhase = "\x1b]0;OWNED\x07review"
	for i := range 5000 {
		b.Warnings = append(b.Warnings, bulletin.Warning{Text: fmt.Sprintf("w%d \x1b[2J\u202e%s", i, strings.Repeat("x", 500)), From: "\x1b[31mevil"})
	}
	data, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := bulletin.Of(ws).Ensure(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bulletin.Of(ws).Path(), data, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := rules.LoadTeam(ws)
	if err != nil {
		t.Fatal(err)
	}
	s, err := desk.New(ws, r, "operator").Snapshot(context.Background(), desk.DefaultLogTail)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != bulletin.MaxWarnings || s.OlderWarnings != 5000-bulletin.MaxWarnings || !strings.HasPrefix(s.Warnings[len(s.Warnings)-1], "w4999 ") {
		t.Fatalf("the snapshot holds %d warnings and counts %d older; want the newest %d", len(s.Warnings), s.OlderWarnings, bulletin.MaxWarnings)
	}
	m, _, _ := console(t, 140, 100, s)
	frame := m.View()
	if strings.ContainsAny(frame, "\x1b\x07\u202e") {
		t.Errorf("the frame holds a raw escape:\n%q", frame)
	}
	if !strings.Contains(frame, "4936 older warnings not shown") || !strings.Contains(frame, `phase \x1b]0;OWNED\x07review`) {
		t.Errorf("the frame does not count the older warnings, or shows the phase unescaped:\n%s", frame)
	}
}
