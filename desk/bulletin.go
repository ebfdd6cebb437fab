package desk

import (
	"fmt"
	"strings"
	"time"

	"switchboard/bulletin"
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
	if d.rules == nil {
		return "", d.noRules()
	}
	if !d.rules.MayChangeBulletin(d.agent) {
		var names []string
		for _, n := range d.rules.Oversight {
			names = append(names, n.Value)
		}
		who := strings.Join(names, ", ")
		if who == "" {
			who = "none named"
		}
		return "", &RightError{fmt.Sprintf("%s may not change the bulletin's status, phase or warnings: only oversight agents (%s) and the operator may", d.agent, who)}
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
