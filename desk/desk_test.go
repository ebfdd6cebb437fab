package desk

import (
	"errors"
	"strings"
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

// TestAKeyOfTheSharedStateIsAName: a key of 4,000 characters (an agent's
// by mistake, or by design: in a team across machines it would become a
// subject past the hub's bound) is refused with what to do, and nothing
// is set.
func TestAKeyOfTheSharedStateIsAName(t *testing.T) {
	_, d := defaultTeam(t)
	err := d.SetState(strings.Repeat("k", 4000), []byte(`1`))
	if err == nil || !strings.Contains(err.Error(), "one line of at most 200 characters") || !strings.Contains(err.Error(), "keep what is long in the value") {
		t.Fatalf("a key of 4,000 characters: %v; want it refused, saying what to do", err)
	}
	if state, err := d.StateList(); err != nil || len(state) != 0 {
		t.Fatalf("the state holds %v, %v; want nothing set", state, err)
	}
}
