package hooks

import (
	"encoding/json"
	"strings"
	"testing"

	"switchboard/mailbox"
)

// peerCall is a PreToolUse event of Claude Code's SendMessage, as 2.1.328
// sends it.
func peerCall(to, message string) string {
	input, _ := json.Marshal(map[string]any{"to": to, "recipient": to, "message": message, "content": message, "summary": message, "type": "message"})
	return `{"hook_event_name":"PreToolUse","tool_name":"SendMessage","tool_input":` + string(input) + `}`
}

// decision is what a PreToolUse answer decides, and why.
func decision(out map[string]any) (string, string) {
	spec, _ := out["hookSpecificOutput"].(map[string]any)
	d, _ := spec["permissionDecision"].(string)
	why, _ := spec["permissionDecisionReason"].(string)
	return d, why
}

// posted are the messages the agent's outbox holds.
func posted(t *testing.T, env Env) []*mailbox.Message {
	t.Helper()
	paths, err := env.Workspace.Store.Pending(env.Agent)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []*mailbox.Message
	for _, path := range paths {
		m, err := mailbox.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	return msgs
}

func TestTheClientsOwnMessageToATeammateGoesThroughSwitchboard(t *testing.T) {
	env := team(t)
	d, why := decision(runHook(t, env, peerCall("reviewer_agent", "Part 1 is done\nsee the branch")))
	if d != "deny" || !strings.Contains(why, "Sent through switchboard instead") {
		t.Fatalf("decision %q, %q; want the call refused and the message sent", d, why)
	}
	msgs := posted(t, env)
	if len(msgs) != 1 || msgs[0].To[0] != "reviewer_agent" || msgs[0].Title != "Part 1 is done" || msgs[0].From != "developer_agent" {
		t.Errorf("outbox %+v; want one message to the reviewer, titled by its first line", msgs)
	}
}

func TestTheClientsOwnMessagePastTheTeamIsRefusedAndReported(t *testing.T) {
	for _, to := range []string{"uds:/tmp/cc-socks/4242.sock", "*", "", "switchboard", "developer_agent"} {
		env := team(t)
		d, why := decision(runHook(t, env, peerCall(to, "psst")))
		if d != "deny" || !strings.Contains(why, "Not sent") {
			t.Errorf("to %q: decision %q, %q; want refused", to, d, why)
		}
		for _, m := range posted(t, env) {
			if !strings.HasPrefix(m.Title, "REFUSED: developer_agent tried to write to") || m.To[0] != "master_agent" {
				t.Errorf("to %q: posted %q to %v; want only a report to the overseer", to, m.Title, m.To)
			}
		}
	}
}

// The session's own subagents (named by its Agent tool, "main" for its
// own conversation) are its own business.
func TestTheClientsMessageToItsOwnSubagentIsLeftAlone(t *testing.T) {
	for _, to := range []string{"researcher", "main"} {
		env := team(t)
		if out := runHook(t, env, peerCall(to, "look into the flaky test")); len(out) != 0 {
			t.Errorf("to %q: answered %v; want {}", to, out)
		}
		if msgs := posted(t, env); len(msgs) != 0 {
			t.Errorf("to %q: posted %d messages", to, len(msgs))
		}
	}
}

// A call too large to read is refused, not let through.
func TestAPeerCallTooLargeToReadIsRefused(t *testing.T) {
	env := team(t)
	d, _ := decision(runHook(t, env, peerCall("reviewer_agent", strings.Repeat("x", 2<<20))))
	if d != "deny" {
		t.Errorf("decision %q; want deny", d)
	}
}
