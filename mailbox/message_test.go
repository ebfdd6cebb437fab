package mailbox

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestParseAndValidate(t *testing.T) {
	tests := []struct {
		name, json, wantErr string
	}{
		{"full message", `{"id":"01a20000-0000-7000-8000-000000000001","timestamp":"2026-11-22T08:57:00.123Z","from":"developer_agent","to":["reviewer_agent"],"title":"Code review request","priority":"normal","type":"request","content":"details","requires_response":true,"correlation_id":"task_123"}`, ""},
		{"to as one string", `{"from":"a","to":"b","title":"t"}`, ""},
		{"broadcast", `{"from":"a","to":["*"],"title":"t"}`, ""},
		{"broadcast mixed", `{"from":"a","to":["*","b"],"title":"t"}`, `"*" must be the only recipient`},
		{"no recipient", `{"from":"a","title":"t"}`, `"to" is missing`},
		{"recipient twice", `{"from":"a","to":["b","b"],"title":"t"}`, `recipient "b" is named twice`},
		{"bad recipient name", `{"from":"a","to":["Bad Name"],"title":"t"}`, `agent name "Bad Name" is not valid`},
		{"reserved recipient", `{"from":"a","to":["log"],"title":"t"}`, `agent name "log" is reserved`},
		{"missing title", `{"from":"a","to":["b"]}`, "title is missing"},
		{"blank title", `{"from":"a","to":["b"],"title":"   "}`, "title is missing"},
		{"long title", `{"from":"a","to":["b"],"title":"` + strings.Repeat("x", 201) + `"}`, "title is 201 characters, the limit is 200"},
		{"two-line title", `{"from":"a","to":["b"],"title":"one\ntwo"}`, "title must be one line"},
		{"bad priority", `{"from":"a","to":["b"],"title":"t","priority":"high"}`, `priority "high" is not one of urgent, normal, low`},
		{"bad type", `{"from":"a","to":["b"],"title":"t","type":"chat"}`, `type "chat" is not one of`},
		{"content too large", `{"from":"a","to":["b"],"title":"t","content":"` + strings.Repeat("x", MaxContentSize+1) + `"}`, "content is 262145 bytes, the limit is 262144"},
		{"id not a uuid", `{"id":"abc","from":"a","to":["b"],"title":"t"}`, `id "abc" is not a UUID`},
		{"bad timestamp", `{"timestamp":"yesterday","from":"a","to":["b"],"title":"t"}`, `timestamp "yesterday" is not RFC 3339`},
		{"title of the wrong type", `{"from":"a","to":["b"],"title":5}`, `field "title" must be a string, not a JSON number`},
		{"to of the wrong type", `{"from":"a","to":5,"title":"t"}`, `"to" must be an agent name or a list of agent names`},
		{"not an object", `[1,2]`, "not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse([]byte(tt.json))
			if err == nil {
				m.Normalize(time.Now())
				err = m.Validate()
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("error %v; want one containing %q", err, tt.wantErr)
			case tt.wantErr != "" && !errors.Is(err, ErrInvalid):
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
		})
	}
}

func TestIncompleteFilesAreTold(t *testing.T) {
	for _, data := range []string{"", "  \n", `{"to": ["b"], "tit`, `{`} {
		if _, err := Parse([]byte(data)); !errors.Is(err, ErrIncomplete) {
			t.Errorf("Parse(%q) = %v; want ErrIncomplete, for a file that may still be being written", data, err)
		}
	}
	if _, err := Parse([]byte(`{"title": 5}`)); errors.Is(err, ErrIncomplete) {
		t.Errorf("a whole but wrong file was taken for an incomplete one")
	}
}

func TestNormalizeFillsWhatASenderLeavesOut(t *testing.T) {
	m := &Message{From: "a", To: []string{"b"}, Title: "t"}
	now := time.Date(2026, 11, 22, 8, 57, 0, 0, time.UTC)
	if !m.Normalize(now) {
		t.Fatal("Normalize reported no change")
	}
	id, err := uuid.Parse(m.ID)
	if err != nil || id.Version() != 7 {
		t.Errorf("id %q is not a UUIDv7", m.ID)
	}
	if !m.Timestamp.Equal(now) || m.Priority != PriorityNormal || m.Type != TypeNotification {
		t.Errorf("normalized = %+v", m)
	}
	if m.Normalize(now) {
		t.Errorf("a second Normalize changed something")
	}
	upper := &Message{ID: "01A20000-0000-7000-8000-00000000000A", Timestamp: now, Priority: "low", Type: "status"}
	if !upper.Normalize(now) || upper.ID != "01a20000-0000-7000-8000-00000000000a" {
		t.Errorf("id not made canonical: %q", upper.ID)
	}
}

func TestUnknownFieldsSurviveARoundTrip(t *testing.T) {
	in := `{"id":"01a20000-0000-7000-8000-000000000001","timestamp":"2026-11-22T08:57:00Z","from":"a","to":["b"],"title":"t","priority":"normal","type":"request","x_ticket":"JIRA-7","x_meta":{"n":1}}`
	m, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	data, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	again, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if string(again.Extra["x_ticket"]) != `"JIRA-7"` || !strings.Contains(string(again.Extra["x_meta"]), `"n": 1`) && !strings.Contains(string(again.Extra["x_meta"]), `"n":1`) {
		t.Errorf("unknown fields after a round trip: %v", again.Extra)
	}
}

func TestClipTitle(t *testing.T) {
	if got := ClipTitle("a\nb  c"); got != "a b c" {
		t.Errorf("ClipTitle joined lines as %q", got)
	}
	long := ClipTitle(strings.Repeat("é", 300))
	if n := len([]rune(long)); n != MaxTitleLength || !strings.HasSuffix(long, "…") {
		t.Errorf("ClipTitle of 300 characters gave %d ending %q", n, long[len(long)-3:])
	}
}
