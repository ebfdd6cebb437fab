package panes

import (
	"os"
	"path/filepath"
	"testing"

	"switchboard/conversation"
	"switchboard/internal/clientinbox"
	"switchboard/lifecycle"
)

// A Codex agent whose session log says its turn ended at the usage limit is
// limited; one that names in its record a teammate's log (the teammate's
// session id and file, which it can read) is not made limited, nor told
// the teammate's words; its own log, once its card is in it, counts.
func TestOnlyACodexAgentsOwnLogSaysItIsLimited(t *testing.T) {
	dir := t.TempDir()
	const mine, theirs = "11111111-2222-4333-8444-555555555555", "66666666-2222-4333-8444-555555555555"
	limited := `{"timestamp":"2026-11-28T09:18:55.210Z","type":"event_msg","payload":{"type":"task_complete","error":{"message":"You've hit your usage limit.","codex_error_info":"usage_limit_exceeded"}}}` + "\n"
	card := func(agent string) string {
		return `{"type":"response_item","payload":{"content":"switchboard: you are ` + lifecycle.CardMark(agent) + `"}}` + "\n"
	}
	write := func(id, text string) string {
		path := filepath.Join(dir, "rollout-2026-11-28T09-16-56-"+id+".jsonl")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	p := &Panes{turnLogs: make(map[string]*turnLog)}

	teammate := clientinbox.Record{SessionID: theirs, Transcript: write(theirs, card("reviewer_agent")+limited)}
	if st, ok := p.turnEnd("developer_agent", teammate); ok {
		t.Errorf("a record naming the reviewer's log made the developer %+v", st)
	}

	// Its own log: the card comes with the first prompt, after the record.
	own := clientinbox.Record{SessionID: mine, Transcript: write(mine, "")}
	if _, ok := p.turnEnd("developer_agent", own); ok {
		t.Fatal("an empty log said something")
	}
	write(mine, card("developer_agent")+limited)
	if st, ok := p.turnEnd("developer_agent", own); !ok || st.State != conversation.Limited {
		t.Errorf("its own log at the usage limit: %+v, %v; want limited", st, ok)
	}
}
