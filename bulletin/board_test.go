package bulletin

import (
	"errors"
	"testing"
	"time"

	"switchboard/mailbox"
)

func TestABoardKeepsThisHostsOwnWarningsAndDegradedStatus(t *testing.T) {
	at := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	b := &Bulletin{SystemStatus: DefaultStatus}
	b.Degrade("the disk is full", at)
	board := b.Board()
	said, err := board.Apply(BoardChange{Status: "blocked", Phase: "review", Warn: "main is frozen", By: "master_agent"}, at)
	if err != nil || len(said) != 3 {
		t.Fatalf("apply: %v, %v", said, err)
	}
	b.SetBoard(board)
	if b.SystemStatus != StatusDegraded || b.CurrentPhase != "review" || !b.Degraded() || len(b.Warnings) != 2 {
		t.Errorf("after the board: %+v", b)
	}
	if got := b.Board(); len(got.Warnings) != 1 || got.Warnings[0].From != "master_agent" || got.Warnings[0].From == mailbox.System {
		t.Errorf("the board shows %+v; want the overseer's warning alone", got.Warnings)
	}
	full := Board{}
	for range MaxWarnings {
		full.Warnings = append(full.Warnings, Warning{Text: "w"})
	}
	if _, err := full.Apply(BoardChange{Warn: "one more"}, at); !errors.Is(err, ErrTooBig) {
		t.Errorf("a warning over the bound: %v", err)
	}
}

func TestClearingWarningsClearsSwitchboardsOwnButTheDisks(t *testing.T) {
	at := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	b := &Bulletin{SystemStatus: DefaultStatus}
	b.Degrade("the disk is full", at)
	b.SetSystemWarning(TopicRules, "the rules were edited", at)
	b.ClearOwnWarnings()
	if len(b.Warnings) != 1 || b.Warnings[0].Topic != TopicDisk {
		t.Errorf("after a clear: %+v; want the disk's warning alone", b.Warnings)
	}
	if b.WouldChange(b.Board()) {
		t.Error("the bulletin's own board would change it")
	}
}
