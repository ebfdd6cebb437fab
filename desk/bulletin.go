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
		if !mailbox.FitsLine(text) {
			return "", fmt.Errorf("a %s is one line of at most %d characters (this one has %d): every agent sees it before each prompt; say more in a message", what, mailbox.MaxTitleLength, utf8.RuneCountInString(text))
		}
	}
	if d.rules == nil {
		return "", d.noRules()
	}
	if !d.rules.MayChangeBulletin(d.agent) {
		return "", &RightError{Msg: fmt.Sprintf("%s may not change the bulletin's status, phase or warnings: only oversight agents (%s) and the operator may", d.agent, d.rules.OversightNames())}
	}
	change := bulletin.BoardChange{Status: c.Status, Phase: c.Phase, Warn: c.Warn, ClearWarnings: c.ClearWarnings, By: d.agent}
	// In a team across machines the hub holds the board: it is changed
	// there, and this host's bulletin shows what it holds then.
	said, board, joined, err := d.changeBoardOnHub(change)
	if err != nil {
		return "", err
	}
	err = bulletin.Of(d.ws).Update(func(b *bulletin.Bulletin) error {
		if c.ClearWarnings {
			b.ClearOwnWarnings()
		}
		if joined {
			b.SetBoard(board)
			return nil
		}
		current := b.Board()
		var err error
		if said, err = current.Apply(change, time.Now().UTC()); err != nil {
			return err
		}
		b.SetBoard(current)
		return nil
	})
	if err != nil {
		return "", err
	}
	return strings.Join(said, "; "), nil
}
