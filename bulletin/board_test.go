package bulletin

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"switchboard/mailbox"
)

func TestABoardKeepsThisHostsOwnWarningsAndDegradedStatus(t *testing.T) {
	at := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	b := &Bulletin{SystemStatus: DefaultStatus}
	b.Degrade(TopicDisk, "the disk is full", at)
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
	b.Degrade(TopicDisk, "the disk is full", at)
	b.SetSystemWarning(TopicRules, "the rules were edited", at)
	b.ClearOwnWarnings()
	if len(b.Warnings) != 1 || b.Warnings[0].Topic != TopicDisk {
		t.Errorf("after a clear: %+v; want the disk's warning alone", b.Warnings)
	}
	if b.WouldChange(b.Board()) {
		t.Error("the bulletin's own board would change it")
	}
}

// TestABoardFromTheHubIsBounded: a board of any size, as any host may
// write it to the hub, is put in the bulletin with the newest MaxWarnings
// warnings, each a line of a title's length, a status that is one of
// Statuses or none, and this host's own warning kept; the same board again
// changes nothing, so the master does not rewrite the bulletin at each
// look at the hub.
func TestABoardFromTheHubIsBounded(t *testing.T) {
	at := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	long := strings.Repeat("x", 2*mailbox.MaxTitleLength)
	board := Board{Status: "on-fire", Phase: "line one\nline two " + long}
	for i := range 5000 {
		board.Warnings = append(board.Warnings, Warning{Text: fmt.Sprintf("w%d \x1b[2J\n%s", i, long), From: "evil\x1b]0;OWNED\x07" + long, At: at})
	}
	b := &Bulletin{SystemStatus: DefaultStatus}
	b.SetSystemWarning(TopicRules, "the rules were edited", at)
	b.SetBoard(board)
	got := b.Board()
	if len(got.Warnings) != MaxWarnings || !strings.HasPrefix(got.Warnings[MaxWarnings-1].Text, "w4999 ") || !strings.HasPrefix(got.Warnings[0].Text, fmt.Sprintf("w%d ", 5000-MaxWarnings)) {
		t.Fatalf("the board holds %d warnings, the last %.10q; want the newest %d", len(got.Warnings), got.Warnings[len(got.Warnings)-1].Text, MaxWarnings)
	}
	for _, text := range []string{got.Phase, got.Warnings[0].Text, got.Warnings[0].From} {
		if n := utf8.RuneCountInString(text); n > mailbox.MaxTitleLength || strings.ContainsAny(text, "\r\n") {
			t.Errorf("a text of %d characters, or of more than one line, was kept: %.40q", n, text)
		}
	}
	if b.SystemStatus != DefaultStatus {
		t.Errorf("status %q; a status none of %v is left out", b.SystemStatus, Statuses)
	}
	if len(b.Warnings) != MaxWarnings+1 || b.Warnings[MaxWarnings].Topic != TopicRules {
		t.Errorf("this host's own warning was not kept: %d warnings", len(b.Warnings))
	}
	if b.WouldChange(board) {
		t.Error("the same board again would rewrite the bulletin")
	}
}

// TestAWarningOnTheHubInSwitchboardsNameIsNotThisHosts: switchboard's own
// warnings are each host's, never the board's; one on the hub is left out,
// not taken for this host's own (which would make it look degraded, and
// copy it again at each look at the hub).
func TestAWarningOnTheHubInSwitchboardsNameIsNotThisHosts(t *testing.T) {
	board := Board{Status: "blocked", Warnings: []Warning{{Text: "the disk is full", From: mailbox.System}, {Text: "main is red", From: "master_agent"}}}
	b := &Bulletin{SystemStatus: DefaultStatus}
	for range 3 {
		b.SetBoard(board)
	}
	if len(b.Warnings) != 1 || b.Warnings[0].From != "master_agent" || b.Degraded() || b.SystemStatus != "blocked" {
		t.Errorf("after the board three times: %+v", b)
	}
	if b.WouldChange(board) {
		t.Error("the same board again would rewrite the bulletin")
	}
}
