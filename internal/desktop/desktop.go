// Package desktop tells the person at the computer through their desktop:
// a notification, where notify-send is installed.
package desktop

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// Notifier shows desktop notifications with notify-send.
type Notifier struct{ path string }

// FindNotifier finds notify-send on PATH; false when it is not installed.
func FindNotifier() (*Notifier, bool) {
	path, err := exec.LookPath("notify-send")
	if err != nil {
		return nil, false
	}
	return &Notifier{path: path}, true
}

// Notify shows a notification titled title, saying text.
func (n *Notifier) Notify(ctx context.Context, title, text string) error {
	if out, err := exec.CommandContext(ctx, n.path, title, text).CombinedOutput(); err != nil {
		return fmt.Errorf("notify-send %q: %w: %s", title, err, strings.TrimSpace(string(out)))
	}
	return nil
}
