package master

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"switchboard/mailbox"
	"switchboard/rules"
)

// replaceRules writes a new rules file the way editors do: a new file renamed
// over the old one.
func replaceRules(t *testing.T, h *harness, text string) {
	t.Helper()
	tmp := filepath.Join(h.root, ".rules.swp")
	writeFile(t, tmp, text)
	if err := os.Rename(tmp, filepath.Join(h.root, rules.FileName)); err != nil {
		t.Fatal(err)
	}
}

func TestReloadsChangedRules(t *testing.T) {
	h := newHarness(t)
	h.start(Options{})
	replaceRules(t, h, `allowed_interactions:
  tester_agent:
    can_send_to: [reviewer_agent]
  reviewer_agent:
    can_receive_from: [tester_agent]
`)
	h.waitFor("the reload", func() bool { return strings.Contains(h.log.String(), "rules reloaded") })

	post(t, h, "tester_agent", &mailbox.Message{To: []string{"reviewer_agent"}, Title: "now allowed"})
	h.waitInbox("reviewer_agent", 1)
}

func TestKeepsOldRulesWhenTheNewOnesAreInvalid(t *testing.T) {
	h := newHarness(t)
	h.start(Options{})
	replaceRules(t, h, teamRules+"surprise: true\n")
	h.waitFor("the refusal", func() bool {
		return strings.Contains(h.log.String(), "rules not reloaded") && strings.Contains(h.log.String(), `unknown key "surprise"`)
	})

	post(t, h, "developer_agent", &mailbox.Message{To: []string{"reviewer_agent"}, Title: "still routed"})
	h.waitInbox("reviewer_agent", 1)
	post(t, h, "tester_agent", &mailbox.Message{To: []string{"reviewer_agent"}, Title: "still blocked"})
	h.waitInbox("tester_agent", 1)
	if n := len(h.inbox("reviewer_agent", mailbox.All)); n != 1 {
		t.Errorf("reviewer has %d messages; the old rules' forbidden entry must still hold", n)
	}
}

func TestNewAgentGetsAMailboxWithoutRestart(t *testing.T) {
	h := newHarness(t)
	h.start(Options{})
	replaceRules(t, h, strings.Replace(teamRules, "allowed_interactions:\n", `allowed_interactions:
  docs_agent:
    can_send_to: [master_agent]
    can_receive_from: [master_agent]
`, 1))
	h.waitFor("docs_agent's mailbox", func() bool { return exists(h.store.OutboxDir("docs_agent")) })

	h.drop("docs_agent", "hi.json", `{"to": ["master_agent"], "title": "docs are up"}`)
	h.waitInbox("master_agent", 1)
}

// TestTheOverseersAreToldWhatNewRulesOpen: the tester's forbidden entry is
// taken out of the file; the master agent, which oversees, is told that
// tester_agent → reviewer_agent is now allowed.
func TestTheOverseersAreToldWhatNewRulesOpen(t *testing.T) {
	h := newHarness(t)
	h.start(Options{})
	replaceRules(t, h, `allowed_interactions:
  master_agent:
    can_send_to: ["*"]
    can_receive_from: ["*"]
  developer_agent:
    can_send_to: [master_agent, reviewer_agent, tester_agent]
    can_receive_from: [master_agent, reviewer_agent, tester_agent]
  reviewer_agent:
    can_send_to: [master_agent, developer_agent]
    can_receive_from: [master_agent, developer_agent, tester_agent]
  tester_agent:
    can_send_to: [master_agent, developer_agent, reviewer_agent]
    can_receive_from: [master_agent, developer_agent]
oversight: [master_agent]
`)
	reports := h.waitInbox("master_agent", 1)
	if reports[0].Title != "RULES CHANGED: tester_agent → reviewer_agent is now allowed" || !strings.Contains(reports[0].Content, "Now allowed:\n  tester_agent → reviewer_agent") {
		t.Errorf("the overseer was told %q:\n%s", reports[0].Title, reports[0].Content)
	}
}
