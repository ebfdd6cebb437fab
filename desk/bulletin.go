package desk

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"switchboard/bulletin"
	"switchboard/mailbox"
)

// BulletinChange is what an overseer changes of the bulletin; fields left
// empty stay as they are.
type BulletinChange struct {
	Status        string // one of bulletin.Statuses
	Phase         string
	Warn          string // a warning added
	ClearWarnings bool
}

// ChangeBulletin applies a change to the bulletin, as oversight agents and
// the operator may (a *RightError for the others), and says what it did.
func (d *Desk) ChangeBulletin(c BulletinChange) (string, error) {
	if c.Status != "" {
		if err := bulletin.CheckStatus(c.Status); err != nil {
			return "", err
		}
	}
	for what, text := range map[string]string{"phase": c.Phase, "warning": c.Warn} {
		if n := utf8.RuneCountInString(text); n > mailbox.MaxTitleLength || strings.ContainsAny(text, "\r\n") {
			return "", fmt.Errorf("a %s is one line of at most %d characters (this one has %d): every agent sees it before each prompt; say more in a message", what, mailbox.MaxTitleLength, n)
		}
	}
	if d.rules == nil {
		return "", d.noRules()
	}
	if !d.rules.MayChangeBulletin(d.agent) {
		return "", &RightError{Msg: fmt.Sprintf("%s may not change the bulletin's status, phase or warnings: only oversight agents (%s) and the operator may", d.agent, d.rules.OversightNames())}
	}
	var said []string
	err := d.ws.Bulletin().Update(func(b *bulletin.Bulletin) error {
		said = nil
		if c.Status != "" {
			b.SystemStatus = c.Status
			said = append(said, fmt.Sprintf("status set to %q", c.Status))
		}
		if c.Phase != "" {
			b.CurrentPhase = c.Phase
			said = append(said, fmt.Sprintf("phase set to %q", c.Phase))
		}
		if c.ClearWarnings {
			n := len(b.Warnings)
			b.Warnings = nil
			s := "warnings"
			if n == 1 {
				s = "warning"
			}
			said = append(said, fmt.Sprintf("%d %s cleared", n, s))
		}
		if c.Warn != "" {
			if len(b.Warnings) >= bulletin.MaxWarnings {
				return fmt.Errorf("the bulletin holds %d warnings, %w: clear them first", len(b.Warnings), bulletin.ErrTooBig)
			}
			b.Warnings = append(b.Warnings, bulletin.Warning{Text: c.Warn, From: d.agent, At: time.Now().UTC()})
			said = append(said, fmt.Sprintf("warning added (%d in all)", len(b.Warnings)))
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return strings.Join(said, "; "), nil
}
