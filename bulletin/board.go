package bulletin

import (
	"fmt"
	"slices"
	"time"

	"switchboard/mailbox"
)

// Board is the part of the bulletin that the overseers set for the whole
// team: its status, its phase and their warnings. In a team across machines
// the hub holds it (under BoardKey), and each host's bulletin shows it.
type Board struct {
	Status   string    `json:"status,omitempty"`
	Phase    string    `json:"phase,omitempty"`
	Warnings []Warning `json:"warnings,omitempty"`
}

// BoardKey is the Board's key among a team's shared values on the hub.
const BoardKey = "board"

// BoardChange is what an overseer changes of the Board; fields left empty
// stay as they are.
type BoardChange struct {
	Status        string // one of Statuses
	Phase         string
	Warn          string // a warning added, from By
	ClearWarnings bool
	By            string
}

// Apply changes the board and says what it did, a clause each.
func (b *Board) Apply(c BoardChange, at time.Time) (said []string, err error) {
	if c.Status != "" {
		b.Status = c.Status
		said = append(said, fmt.Sprintf("status set to %q", c.Status))
	}
	if c.Phase != "" {
		b.Phase = c.Phase
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
		if len(b.Warnings) >= MaxWarnings {
			return nil, fmt.Errorf("the bulletin holds %d warnings, %w: clear them first", len(b.Warnings), ErrTooBig)
		}
		b.Warnings = append(b.Warnings, Warning{Text: c.Warn, From: c.By, At: at})
		said = append(said, fmt.Sprintf("warning added (%d in all)", len(b.Warnings)))
	}
	return said, nil
}

// Board is the bulletin's board: its status, phase and the warnings the
// overseers gave (switchboard's own are this host's).
func (b *Bulletin) Board() Board {
	return Board{Status: b.SystemStatus, Phase: b.CurrentPhase,
		Warnings: slices.DeleteFunc(slices.Clone(b.Warnings), ownWarning)}
}

// ClearOwnWarnings takes switchboard's own warnings off the bulletin, but
// those that come with a degraded status (the disk is full, mail from the
// hub may stall), which go when their cause does.
func (b *Bulletin) ClearOwnWarnings() {
	b.Warnings = slices.DeleteFunc(b.Warnings, func(w Warning) bool { return ownWarning(w) && !degrading(w) })
}

// WouldChange reports whether SetBoard(board) would change the bulletin.
func (b *Bulletin) WouldChange(board Board) bool {
	next := *b
	next.Warnings = slices.Clone(b.Warnings)
	next.SetBoard(board)
	return next.SystemStatus != b.SystemStatus || next.CurrentPhase != b.CurrentPhase ||
		!slices.EqualFunc(next.Warnings, b.Warnings, sameWarning)
}

func sameWarning(x, y Warning) bool {
	return x.Text == y.Text && x.From == y.From && x.Topic == y.Topic && x.At.Equal(y.At)
}

// SetBoard puts a board in the bulletin, bounded (Bounded), keeping
// switchboard's own warnings of this host, and its status while this
// host's master is degraded.
func (b *Bulletin) SetBoard(board Board) {
	board = board.Bounded()
	if board.Status != "" && !b.Degraded() {
		b.SystemStatus = board.Status
	}
	b.CurrentPhase = board.Phase
	own := slices.DeleteFunc(slices.Clone(b.Warnings), func(w Warning) bool { return !ownWarning(w) })
	b.Warnings = append(slices.Clone(board.Warnings), own...)
}

// ownWarning is a warning of switchboard's own, about this host.
func ownWarning(w Warning) bool { return w.From == mailbox.System }

// Bounded is the board as a bulletin may hold it, whoever wrote it: the
// newest MaxWarnings warnings, each warning, its sender and the phase one
// line of at most mailbox.MaxTitleLength characters, and a status that is
// none of Statuses left out. In a team across machines the board comes
// from the hub, which any host may write, and every agent's hook prints it
// before each prompt. A warning that claims to be switchboard's own goes:
// those are of this host alone, never the board's, and one kept would be
// taken for this host's own and copied again at each look at the hub.
func (b Board) Bounded() Board {
	out := Board{Phase: mailbox.ClipTitle(b.Phase)}
	if CheckStatus(b.Status) == nil {
		out.Status = b.Status
	}
	var warnings []Warning
	for _, w := range b.Warnings {
		w.Text, w.From = mailbox.ClipTitle(w.Text), mailbox.ClipTitle(w.From)
		if !ownWarning(w) {
			warnings = append(warnings, w)
		}
	}
	out.Warnings, _ = NewestWarnings(warnings)
	return out
}

// NewestWarnings are the last MaxWarnings of warnings, the newest (a
// warning is added at the end), and how many older ones are left out: a
// bulletin edited by hand may hold any number.
func NewestWarnings(warnings []Warning) (newest []Warning, older int) {
	older = max(0, len(warnings)-MaxWarnings)
	return warnings[older:], older
}
