package hooks

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzClaude feeds the hook any input, as a client of any version might
// send. It never panics, and always answers one line of JSON that the
// clients accept: an object whose decision, when there is one, is "block".
func FuzzClaude(f *testing.F) {
	for _, seed := range []string{
		`{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"go on"}`,
		`{"hook_event_name":"SessionStart","source":"startup"}`,
		`{"hook_event_name":"Stop","stop_hook_active":false}`,
		`{"hook_event_name":"Stop","stop_hook_active":true,"turn_id":"t1"}`,
		`{"hook_event_name":"AfterAgent"}`,
		`{"hook_event_name":"BeforeAgent"}`,
		`{"hook_event_name":"PostToolUse","tool_name":"Bash"}`,
		`{"hook_event_name":"Notification","notification_type":"permission_prompt"}`,
		`{"hook_event_name":"SessionEnd"}`,
		`{"hook_event_name":7}`, `{"hook_event_name":"Stop","stop_hook_active":"yes"}`,
		`[]`, `null`, ``, `{`, "\xff\xfe",
	} {
		f.Add([]byte(seed))
	}
	env := team(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		Claude(bytes.NewReader(data), &out, env)
		line, rest, found := bytes.Cut(out.Bytes(), []byte("\n"))
		if !found || len(rest) != 0 {
			t.Fatalf("the answer is not one line: %q", out.String())
		}
		var answer map[string]any
		if err := json.Unmarshal(line, &answer); err != nil {
			t.Fatalf("the answer is not a JSON object: %q", line)
		}
		if d, ok := answer["decision"]; ok && d != "block" {
			t.Fatalf("the answer's decision is %v", d)
		}
	})
}
