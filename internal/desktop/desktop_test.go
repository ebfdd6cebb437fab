package desktop

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNotifyHandsTheTitleAndTextToNotifySend: a notify-send on PATH is
// found, and given the title and the text as they are.
func TestNotifyHandsTheTitleAndTextToNotifySend(t *testing.T) {
	dir := t.TempDir()
	said := filepath.Join(dir, "said")
	script := "#!/bin/sh\nprintf '%s|%s' \"$1\" \"$2\" > " + said + "\n"
	if err := os.WriteFile(filepath.Join(dir, "notify-send"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	n, ok := FindNotifier()
	if !ok {
		t.Fatal("notify-send on PATH not found")
	}
	if err := n.Notify(context.Background(), "switchboard", "developer_agent asks: may I? $HOME"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(said); string(got) != "switchboard|developer_agent asks: may I? $HOME" {
		t.Errorf("notify-send was given %q", got)
	}
}

// TestNoNotifierWithoutNotifySend: none is found where it is not installed.
func TestNoNotifierWithoutNotifySend(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if _, ok := FindNotifier(); ok {
		t.Error("a notifier found on a PATH without notify-send")
	}
}

// TestAFailedNotificationSaysWhy: what notify-send said comes back.
func TestAFailedNotificationSaysWhy(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\necho 'cannot connect to the bus' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(dir, "notify-send"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	n, _ := FindNotifier()
	if err := n.Notify(context.Background(), "switchboard", "x"); err == nil || !strings.Contains(err.Error(), "cannot connect to the bus") {
		t.Errorf("a failing notify-send: %v", err)
	}
}
