package main

import (
	"encoding/json"
	"strings"
	"testing"

	"switchboard/mailbox"
	"switchboard/profile"
	"switchboard/rules/approvals"
)

// TestEveryRightIsRefusedAndGivenThroughTheCommands: each right the desk
// decides, through the command line: a sibling is refused with exit 3 and
// the rule that refused it; the agent the rules give the right to is not.
// The same rights through the MCP tools are TestRightsThroughTheTools.
func TestEveryRightIsRefusedAndGivenThroughTheCommands(t *testing.T) {
	root := t.TempDir()
	if _, err := profile.WriteDefaultTeam(root, false); err != nil {
		t.Fatal(err)
	}
	tm := &team{t: t, root: root, store: mailbox.NewStore(root)}
	refused := func(want string, args ...string) {
		t.Helper()
		out, code := tm.switchboard(args...)
		if code != exitRefused || !strings.Contains(out, want) {
			t.Errorf("switchboard %s: exit %d, %q; want exit 3 saying %q", strings.Join(args, " "), code, out, want)
		}
	}
	refused("tester_agent may not answer for developer_agent: its ancestors and the overseers may",
		"approvals", "set", "developer_agent", "always", "npm test *", "--as", "tester_agent")
	out := tm.must("approvals", "set", "developer_agent", "always", "npm test *", "--as", "master_agent")
	id, _, _ := strings.Cut(out, ":")
	refused("tester_agent may not revoke approval "+id, "approvals", "revoke", id, "--as", "tester_agent")
	var listed []approvals.Approval
	if err := json.Unmarshal([]byte(tm.must("approvals", "--json")), &listed); err != nil || len(listed) != 1 {
		t.Fatalf("approvals after a refused revoke: %v, %v; want the one set", listed, err)
	}
	tm.must("approvals", "revoke", id, "--as", "master_agent")

	refused("developer_agent may not interrupt tester_agent", "interrupt", "tester_agent", "--reason", "stop", "--as", "developer_agent")
	tm.must("interrupt", "tester_agent", "--reason", "stop: rebase first", "--as", "master_agent")
	refused("tester_agent may not cancel developer_agent", "cancel", "developer_agent", "--as", "tester_agent")
	refused("tester_agent may not change the bulletin", "bulletin", "set", "status", "degraded", "--as", "tester_agent")
	tm.must("bulletin", "set", "status", "degraded", "--as", "master_agent")
	refused("tester_agent may not stop the team: only oversight agents (master_agent) and the person at the keyboard may (the attempt is logged); outside the team's panes, run `switchboard down --as operator`",
		"down", "--as", "tester_agent")
	if out := tm.must("down", "--as", "master_agent"); !strings.Contains(out, "nothing was running") {
		t.Errorf("down by the overseer: %q", out)
	}

	// The interrupt was posted; the refused ones were not, and the refused
	// stop was reported to the overseer.
	pending := func(agent string) []string {
		paths, err := tm.store.Pending(agent)
		if err != nil {
			t.Fatal(err)
		}
		return paths
	}
	if got := pending("master_agent"); len(got) != 1 {
		t.Errorf("the overseer posted %d messages; want its interrupt", len(got))
	}
	if got := pending("developer_agent"); len(got) != 0 {
		t.Errorf("the refused interrupt posted %d messages; want none", len(got))
	}
	if got := pending("tester_agent"); len(got) != 1 {
		t.Fatalf("the tester posted %d messages; want the report of its refused stop", len(got))
	}
	if m, err := mailbox.Load(pending("tester_agent")[0]); err != nil || m.Title != "REFUSED: tester_agent tried to stop the team" || m.To[0] != "master_agent" {
		t.Errorf("the report of the refused stop: %+v, %v", m, err)
	}
}
