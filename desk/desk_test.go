package desk

import (
	"errors"
	"testing"

	"switchboard/mailbox"
	"switchboard/profile"
	"switchboard/rules"
	"switchboard/workspace"
)

func defaultTeam(t *testing.T) (*workspace.Workspace, *Desk) {
	t.Helper()
	root := t.TempDir()
	if _, err := profile.WriteDefaultTeam(root, false); err != nil {
		t.Fatal(err)
	}
	ws := workspace.New(root)
	ws.Store.Durable = false
	r, err := rules.LoadTeam(ws)
	if err != nil {
		t.Fatal(err)
	}
	return ws, New(ws, r, "tester_agent")
}

// TestSendSaysWhatCameOfAMessage: an unknown recipient posts nothing and
// names the agent meant; a blocked message is posted (the master logs the
// attempt) and says why; an invalid one is refused as such.
func TestSendSaysWhatCameOfAMessage(t *testing.T) {
	ws, d := defaultTeam(t)
	_, err := d.Send(&mailbox.Message{To: []string{"reviewr_agent"}, Title: "x"})
	var unknown *UnknownAgentError
	if !errors.As(err, &unknown) || unknown.Near != "reviewer_agent" {
		t.Errorf("to a typo: %v", err)
	}
	sent, err := d.Send(&mailbox.Message{To: []string{"reviewer_agent"}, Title: "Found a bug"})
	var blocked *BlockedError
	if !errors.As(err, &blocked) || sent.ID == "" || len(blocked.Reasons) != 1 {
		t.Errorf("a forbidden pair: %+v, %v", sent, err)
	}
	if _, err := d.Send(&mailbox.Message{To: []string{"developer_agent"}, Title: "x", Priority: "high"}); !errors.Is(err, mailbox.ErrInvalid) {
		t.Errorf("a bad priority: %v", err)
	}
	if pending, _ := ws.Store.Pending("tester_agent"); len(pending) != 1 {
		t.Errorf("%d messages in the outbox; want the blocked one alone", len(pending))
	}
}

// TestADeskWithoutRulesReadsButSaysWhyItCannotSend.
func TestADeskWithoutRulesReadsButSaysWhyItCannotSend(t *testing.T) {
	ws, _ := defaultTeam(t)
	why := errors.New("communication_rules.yaml:3: did not find expected key")
	d := WithoutRules(ws, "tester_agent", why)
	if _, err := d.Read("", false); !errors.Is(err, ErrNoUnread) {
		t.Errorf("read with nothing unread: %v", err)
	}
	if _, err := d.Send(&mailbox.Message{To: []string{"developer_agent"}, Title: "x"}); !errors.Is(err, ErrNoRules) || !errors.Is(err, why) {
		t.Errorf("send without rules: %v", err)
	}
}
