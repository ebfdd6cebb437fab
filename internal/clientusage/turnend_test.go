package clientusage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Lines as Codex CLI 0.169.0 writes them at the end of a turn.
const (
	turnDone    = `{"timestamp":"2026-11-28T09:17:55.210Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"t1","last_agent_message":"done"}}` + "\n"
	turnLimited = `{"timestamp":"2026-11-28T09:18:55.210Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"t2","error":{"message":"You've hit your usage limit. Try again at Jan 2nd, 2030 3:04 PM.","codex_error_info":"usage_limit_exceeded"}}}` + "\n"
	turnFailed  = `{"timestamp":"2026-11-28T09:19:55.210Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"t3","error":{"message":"stream disconnected","codex_error_info":{"response_stream_disconnected":{"http_status_code":502}}}}}` + "\n"
)

func TestATurnThatEndsOnCodexsUsageLimitIsLimitedAndReadOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rollout.jsonl")
	write := func(s string) {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(s)
		f.Close()
	}
	var from int64
	if _, ok, err := LastTurnEnd(path, &from); ok || err != nil {
		t.Fatalf("a log not there yet: ok %v, err %v", ok, err)
	}
	// A tool's output longer than a line is read, then the turn's end.
	write(`{"type":"response_item","payload":{"output":"` + strings.Repeat("x", maxLine+10) + `"}}` + "\n" + turnDone)
	end, ok, err := LastTurnEnd(path, &from)
	if err != nil || !ok || end.Failed {
		t.Fatalf("a turn that worked: %+v ok %v err %v", end, ok, err)
	}
	write(turnLimited + turnFailed[:40])
	end, ok, _ = LastTurnEnd(path, &from)
	if !ok || !end.Limited || !strings.HasPrefix(end.Why, "usage limit reached: ") || !strings.Contains(end.Why, "2030") {
		t.Errorf("a turn at the usage limit: %+v", end)
	}
	if _, ok, _ := LastTurnEnd(path, &from); ok {
		t.Error("a turn end read twice, or half a line read")
	}
	write(turnFailed[40:])
	end, ok, _ = LastTurnEnd(path, &from)
	if !ok || !end.Failed || end.Limited || end.Why != "stream disconnected" {
		t.Errorf("a turn that failed otherwise: %+v", end)
	}
}
