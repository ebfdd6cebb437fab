package profile

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"switchboard/mailbox"
	"switchboard/workspace"
)

// TestPromptsGoWhereTheProfileAndTheParentSay: an agent of the rules keeps
// its prompts in its pane unless its profile sends them up, to the
// operator; a spawned agent sends them to its parent, with its profile's
// timeout; one spawned by the person, to the operator.
func TestPromptsGoWhereTheProfileAndTheParentSay(t *testing.T) {
	ws := workspace.New(t.TempDir())
	if err := os.MkdirAll(ws.Profiles(), 0o700); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"tester_agent": "approvals: parent\n", "reviewer_agent": "approval_timeout: 45s\n"} {
		if err := os.WriteFile(filepath.Join(ws.Profiles(), name+".yaml"), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := ws.UpdateSpawned(func(all map[string]workspace.Spawned) error {
		all["h1"] = workspace.Spawned{Profile: "reviewer_agent", Parent: "developer_agent"}
		all["h2"] = workspace.Spawned{Profile: "reviewer_agent", Parent: mailbox.Operator}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for agent, want := range map[string]Prompts{
		"developer_agent": {Approvals: ApprovalsPane, Answerer: mailbox.Operator, Timeout: DefaultApprovalTimeout},
		"tester_agent":    {Approvals: ApprovalsParent, Answerer: mailbox.Operator, Timeout: DefaultApprovalTimeout},
		"h1":              {Approvals: ApprovalsParent, Answerer: "developer_agent", Timeout: 45 * time.Second},
		"h2":              {Approvals: ApprovalsParent, Answerer: mailbox.Operator, Timeout: 45 * time.Second},
	} {
		if got, err := PromptsOf(ws, agent); err != nil || got != want {
			t.Errorf("%s: %+v (%v); want %+v", agent, got, err, want)
		}
	}
}
