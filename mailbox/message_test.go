package mailbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
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

// designExample is the message of the design contract (section 4), with one
// field the contract does not name.
const designExample = `{
  "id": "0193a7c2-1111-7000-8000-000000000001",
  "timestamp": "2026-11-22T08:57:00.123Z",
  "from": "developer_agent",
  "to": ["reviewer_agent"],
  "title": "Code review request for login feature",
  "priority": "normal",
  "type": "request",
  "content": "Full details of the code changes...",
  "requires_response": true,
  "correlation_id": "task_123",
  "in_reply_to": "0193a7b0-2222-7000-8000-000000000002",
  "x_tool": {"name": "claude", "turns": [1, 2]}
}`

// validMessage returns a message that passes Validate; each test changes
// the one field it is about.
func validMessage() *Message {
	return &Message{
		ID:        "0193a7c2-1111-7000-8000-000000000001",
		Timestamp: time.Date(2026, 11, 22, 8, 57, 0, 123000000, time.UTC),
		From:      "developer_agent",
		To:        []string{"reviewer_agent"},
		Title:     "Code review request",
		Priority:  PriorityNormal,
		Type:      TypeRequest,
		Content:   "details",
	}
}

func TestParseValidMessageRoundTrips(t *testing.T) {
	m, err := Parse([]byte(designExample))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if err := m.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	want := &Message{
		ID:               "0193a7c2-1111-7000-8000-000000000001",
		Timestamp:        time.Date(2026, 11, 22, 8, 57, 0, 123000000, time.UTC),
		From:             "developer_agent",
		To:               []string{"reviewer_agent"},
		Title:            "Code review request for login feature",
		Priority:         "normal",
		Type:             "request",
		Content:          "Full details of the code changes...",
		RequiresResponse: true,
		CorrelationID:    "task_123",
		InReplyTo:        "0193a7b0-2222-7000-8000-000000000002",
		Extra:            map[string]json.RawMessage{"x_tool": json.RawMessage(`{"name": "claude", "turns": [1, 2]}`)},
	}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("Parse:\n got %+v\nwant %+v", m, want)
	}

	encoded, err := m.Encode()
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	if !bytes.HasSuffix(encoded, []byte("}\n")) {
		t.Errorf("Encode does not end the file with a newline: %q", encoded[len(encoded)-5:])
	}
	again, err := Parse(encoded)
	if err != nil {
		t.Fatalf("Parse of the encoded message: %v\n%s", err, encoded)
	}
	reencoded, err := again.Encode()
	if err != nil {
		t.Fatalf("Encode again: %v", err)
	}
	if !bytes.Equal(encoded, reencoded) {
		t.Errorf("Parse -> Encode is not stable:\nfirst:\n%s\nsecond:\n%s", encoded, reencoded)
	}
	if again.ID != want.ID || !again.Timestamp.Equal(want.Timestamp) || again.Title != want.Title ||
		!again.RequiresResponse || again.CorrelationID != want.CorrelationID {
		t.Errorf("round trip lost fields: %+v", again)
	}
}

func TestParseAcceptsToAsOneName(t *testing.T) {
	m, err := Parse([]byte(`{"from":"developer_agent","to":"reviewer_agent","title":"hi"}`))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if !reflect.DeepEqual(m.To, []string{"reviewer_agent"}) {
		t.Errorf("To = %q, want [reviewer_agent]", m.To)
	}
	encoded, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(encoded, []byte("\"to\": [\n    \"reviewer_agent\"\n  ]")) {
		t.Errorf("Encode should write \"to\" as a list:\n%s", encoded)
	}
}

func TestParseConvertsTimestampToUTC(t *testing.T) {
	m, err := Parse([]byte(`{"title":"x","timestamp":"2026-11-22T10:57:00.5+02:00"}`))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	want := time.Date(2026, 11, 22, 8, 57, 0, 500000000, time.UTC)
	if !m.Timestamp.Equal(want) || m.Timestamp.Location() != time.UTC {
		t.Errorf("Timestamp = %v, want %v in UTC", m.Timestamp, want)
	}
}

// TestParseRefusesWrongShapes covers files that are whole JSON but not a
// message: the error must say which field is wrong and how.
func TestParseRefusesWrongShapes(t *testing.T) {
	tests := []struct {
		name string
		data string
		want string // in the message
	}{
		{"JSON list", `["title"]`, "not a JSON object"},
		{"title is a number", `{"title":5}`, `field "title" must be a string, not a JSON number`},
		{"title is a list", `{"title":["a"]}`, `field "title" must be a string, not a JSON array`},
		{"requires_response is text", `{"title":"x","requires_response":"yes"}`, `field "requires_response" must be a boolean, not a JSON string`},
		{"content is an object", `{"title":"x","content":{"a":1}}`, `field "content" must be a string, not a JSON object`},
		{"to is a number", `{"title":"x","to":5}`, `"to" must be an agent name or a list of agent names`},
		{"to holds a number", `{"title":"x","to":["a",5]}`, `"to" must be an agent name or a list of agent names`},
		{"timestamp in words", `{"title":"x","timestamp":"yesterday"}`, `timestamp "yesterday" is not RFC 3339`},
		{"timestamp without zone", `{"title":"x","timestamp":"2026-11-22T08:57:00"}`, "is not RFC 3339"},
		{"timestamp as epoch", `{"title":"x","timestamp":1763801820}`, `field "timestamp" must be a string, not a JSON number`},
		{"bad delivered_at", `{"title":"x","delivered_at":"soon"}`, `delivered_at "soon" is not RFC 3339`},
		{"file over 1 MiB", `{"title":"x","content":"` + strings.Repeat("a", MaxFileSize) + `"}`, "the limit is 1048576"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse([]byte(tt.data))
			if err == nil {
				t.Fatalf("Parse succeeded: %+v", m)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %q does not wrap ErrInvalid", err)
			}
			if errors.Is(err, ErrIncomplete) {
				t.Errorf("error %q says the file may still be being written; it is whole and wrong", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
		})
	}
}

// TestValidateEdges checks the limits of each rule on a message built in
// code, beside TestParseAndValidate, which goes through Parse.
func TestValidateEdges(t *testing.T) {
	tests := []struct {
		name   string
		change func(m *Message)
		want   string // "" when valid
	}{
		{"valid", func(m *Message) {}, ""},
		{"broadcast alone", func(m *Message) { m.To = []string{"*"} }, ""},
		{"name with broadcast", func(m *Message) { m.To = []string{"tester_agent", "*"} }, `"*" must be the only recipient`},
		{"several recipients", func(m *Message) { m.To = []string{"tester_agent", "reviewer_agent"} }, ""},
		{"recipient with a bad name", func(m *Message) { m.To = []string{"../etc"} }, `agent name "../etc" is not valid`},
		{"sender missing", func(m *Message) { m.From = "" }, "from: agent name is empty"},
		{"sender with a bad name", func(m *Message) { m.From = "Developer" }, "from: agent name \"Developer\" is not valid"},
		{"title of 200 characters", func(m *Message) { m.Title = strings.Repeat("é", 200) }, ""},
		{"title with a carriage return", func(m *Message) { m.Title = "first\rsecond" }, "title must be one line"},
		{"priority missing", func(m *Message) { m.Priority = "" }, `priority "" is not one of`},
		{"type unknown", func(m *Message) { m.Type = "chat" }, `type "chat" is not one of instruction, query, request, response, notification, status, interrupt`},
		{"content at the limit", func(m *Message) { m.Content = strings.Repeat("a", MaxContentSize) }, ""},
		{"content over the limit", func(m *Message) { m.Content = strings.Repeat("a", MaxContentSize+1) }, "content is 262145 bytes, the limit is 262144"},
		{"content not UTF-8", func(m *Message) { m.Content = "\xff\xfe" }, "content is not valid UTF-8"},
		{"id missing", func(m *Message) { m.ID = "" }, "id is missing"},
		{"id a UUID without dashes", func(m *Message) { m.ID = "0193a7c211117000800000000000001f" }, "is not a UUID"},
		{"timestamp missing", func(m *Message) { m.Timestamp = time.Time{} }, "timestamp is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := validMessage()
			tt.change(m)
			err := m.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate accepted %+v", m)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %q does not wrap ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
		})
	}
}

func TestUnknownFieldsSurviveARoundTrip(t *testing.T) {
	in := `{"from":"developer_agent","to":["tester_agent"],"title":"x",` +
		`"x_tool":{"name":"claude","turns":[1,2]},"attempt":3,"tags":["a","b"],"note":null}`
	m, err := Parse([]byte(in))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	wantExtra := map[string]string{
		"x_tool":  `{"name":"claude","turns":[1,2]}`,
		"attempt": `3`,
		"tags":    `["a","b"]`,
		"note":    `null`,
	}
	checkExtra := func(stage string, m *Message) {
		t.Helper()
		if len(m.Extra) != len(wantExtra) {
			t.Errorf("%s: Extra has %d fields, want %d: %s", stage, len(m.Extra), len(wantExtra), m.Extra)
		}
		for key, want := range wantExtra {
			var got bytes.Buffer
			if err := json.Compact(&got, m.Extra[key]); err != nil {
				t.Errorf("%s: Extra[%q] = %q is not JSON: %v", stage, key, m.Extra[key], err)
				continue
			}
			if got.String() != want {
				t.Errorf("%s: Extra[%q] = %s, want %s", stage, key, got.String(), want)
			}
		}
		for _, known := range []string{"from", "to", "title"} {
			if _, ok := m.Extra[known]; ok {
				t.Errorf("%s: known field %q is in Extra", stage, known)
			}
		}
	}
	checkExtra("Parse", m)

	encoded, err := m.Encode()
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	again, err := Parse(encoded)
	if err != nil {
		t.Fatalf("Parse of the encoded message: %v\n%s", err, encoded)
	}
	checkExtra("Parse -> Encode -> Parse", again)
	if again.Title != "x" || again.From != "developer_agent" {
		t.Errorf("known fields changed: %+v", again)
	}
}

func TestMessageInsideOtherJSON(t *testing.T) {
	// The audit log embeds messages; json.Unmarshal must apply Parse's rules.
	var holder struct {
		Message Message `json:"message"`
	}
	if err := json.Unmarshal([]byte(`{"message":{"title":"x","to":"tester_agent","x_tool":1}}`), &holder); err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	if !reflect.DeepEqual(holder.Message.To, []string{"tester_agent"}) || string(holder.Message.Extra["x_tool"]) != "1" {
		t.Errorf("embedded message = %+v", holder.Message)
	}
	err := json.Unmarshal([]byte(`{"message":{"title":5}}`), &holder)
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("Unmarshal of a bad embedded message: %v, want ErrInvalid", err)
	}
}

// isUUIDv7 reports whether id is a UUIDv7 in canonical form.
func isUUIDv7(id string) bool {
	u, err := uuid.Parse(id)
	return err == nil && u.Version() == 7 && u.String() == id
}

func TestNormalizeFillsDefaults(t *testing.T) {
	now := time.Date(2026, 11, 22, 9, 57, 0, 42, time.FixedZone("CET", 3600))
	m := &Message{From: "developer_agent", To: []string{"tester_agent"}, Title: "x"}
	if !m.Normalize(now) {
		t.Error("Normalize of a bare message reported no change")
	}
	if !isUUIDv7(m.ID) {
		t.Errorf("ID = %q, want a UUIDv7", m.ID)
	}
	if !m.Timestamp.Equal(now) || m.Timestamp.Location() != time.UTC {
		t.Errorf("Timestamp = %v, want %v in UTC", m.Timestamp, now)
	}
	if m.Priority != PriorityNormal {
		t.Errorf("Priority = %q, want normal", m.Priority)
	}
	if m.Type != TypeNotification {
		t.Errorf("Type = %q, want notification", m.Type)
	}
	if err := m.Validate(); err != nil {
		t.Errorf("a normalized message does not validate: %v", err)
	}

	before := *m
	if m.Normalize(now.Add(time.Hour)) {
		t.Error("a second Normalize reported a change")
	}
	if m.ID != before.ID || !m.Timestamp.Equal(before.Timestamp) {
		t.Errorf("a second Normalize changed the message: %+v, was %+v", m, before)
	}
}

func TestNormalizeKeepsWhatTheSenderGave(t *testing.T) {
	m := validMessage()
	m.Priority, m.Type = PriorityUrgent, TypeInterrupt
	want := *m
	if m.Normalize(time.Now()) {
		t.Error("Normalize of a complete message reported a change")
	}
	if !reflect.DeepEqual(*m, want) {
		t.Errorf("Normalize changed a complete message:\n got %+v\nwant %+v", *m, want)
	}
}

func TestNormalizeWritesUUIDsInCanonicalForm(t *testing.T) {
	m := validMessage()
	m.ID = "0193A7C2-1111-7000-8000-00000000000F"
	if !m.Normalize(time.Now()) {
		t.Error("Normalize of an upper-case id reported no change")
	}
	if m.ID != "0193a7c2-1111-7000-8000-00000000000f" {
		t.Errorf("ID = %q, want it in lower case", m.ID)
	}
}

func TestNewIDsSortByCreation(t *testing.T) {
	prev := NewID()
	for range 100 {
		id := NewID()
		if !isUUIDv7(id) {
			t.Fatalf("NewID = %q, want a UUIDv7", id)
		}
		if id <= prev {
			t.Fatalf("NewID %q does not sort after the one before, %q", id, prev)
		}
		prev = id
	}
}

func TestIsBroadcast(t *testing.T) {
	tests := []struct {
		to   []string
		want bool
	}{
		{[]string{"*"}, true},
		{[]string{"tester_agent"}, false},
		{[]string{"*", "tester_agent"}, false},
		{nil, false},
	}
	for _, tt := range tests {
		m := &Message{To: tt.to}
		if got := m.IsBroadcast(); got != tt.want {
			t.Errorf("IsBroadcast(%q) = %v, want %v", tt.to, got, tt.want)
		}
	}
}

func TestClipTitle(t *testing.T) {
	long := strings.Repeat("a", 250)
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"short", "Review please", "Review please"},
		{"lines joined", "first line\nsecond line\r\n", "first line second line"},
		{"spaces squeezed", "  a \t b  ", "a b"},
		{"exactly the limit", strings.Repeat("é", 200), strings.Repeat("é", 200)},
		{"over the limit", long, strings.Repeat("a", 199) + "…"},
		{"multi-byte over the limit", strings.Repeat("ü", 201), strings.Repeat("ü", 199) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ClipTitle(tt.in)
			if got != tt.want {
				t.Errorf("ClipTitle(%q) = %q, want %q", tt.in, got, tt.want)
			}
			m := validMessage()
			m.Title = got
			if err := m.Validate(); err != nil {
				t.Errorf("a clipped title does not validate: %v", err)
			}
		})
	}
}

// A delivered copy is written with Encode and read back with Parse by its
// recipient, so a message that validates must still parse once encoded.
func TestValidMessageStillParsesOnceEncoded(t *testing.T) {
	m := validMessage()
	m.Content = strings.Repeat("<", MaxContentSize)
	if err := m.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	controls := validMessage()
	controls.Content = strings.Repeat("\x01", MaxContentSize)
	if err := controls.Validate(); err == nil || !strings.Contains(err.Error(), "once written") {
		t.Errorf("Validate of content that encodes past the file limit = %v; want a refusal", err)
	}
	encoded, err := m.Encode()
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	if _, err := Parse(encoded); err != nil {
		t.Errorf("Parse of the encoded message (%d bytes): %v", len(encoded), err)
	}
}

// JSON field names match case-insensitively when decoded, so a key such as
// "FROM" both sets From and is kept in Extra. The copy the master writes
// must not let the kept key take over again when the recipient reads it.
func TestUnknownCaseVariantCannotChangeSender(t *testing.T) {
	in := `{"FROM":"tester_agent","from":"developer_agent","to":["reviewer_agent"],"title":"x"}`
	m, err := Parse([]byte(in))
	if err != nil {
		if !strings.Contains(err.Error(), `field "FROM" differs from "from" only in case`) {
			t.Errorf("Parse refused it, but not saying why: %v", err)
		}
		return // refusing it is the fix
	}
	if m.From != "developer_agent" {
		t.Fatalf("From = %q, want developer_agent", m.From)
	}
	encoded, err := m.Encode()
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	delivered, err := Parse(encoded)
	if err != nil {
		t.Fatalf("Parse of the encoded copy: %v", err)
	}
	if delivered.From != m.From {
		t.Errorf("the delivered copy reads as from %q, the message was from %q:\n%s", delivered.From, m.From, encoded)
	}
}

// A timestamp is kept in UTC, and Encode cannot write years outside 0-9999.
func TestTimestampThatParsesCanBeEncoded(t *testing.T) {
	for _, ts := range []string{"0000-01-01T00:00:00+01:00", "9999-12-31T23:30:00-01:00"} {
		m, err := Parse([]byte(`{"title":"x","timestamp":"` + ts + `"}`))
		if err != nil {
			continue // refusing it is fine
		}
		if _, err := m.Encode(); err != nil {
			t.Errorf("timestamp %s parses but does not encode: %v", ts, err)
		}
	}
}

// TestUnicodeFoldedKeysAreRefused: Go's JSON decoder also folds "ſ" (long
// s) to "s": a "ſeq" or a "timeſtamp" would set the field while passing for
// an extra, and its copy read back would change the message. They are
// refused like any other case variant; a key no field folds to stays an
// extra.
func TestUnicodeFoldedKeysAreRefused(t *testing.T) {
	for _, key := range []string{"ſeq", "timeſtamp", "Priority"} {
		in := `{"to":["reviewer_agent"],"title":"x","` + key + `":1}`
		if _, err := Parse([]byte(in)); err == nil || !strings.Contains(err.Error(), "only in case") {
			t.Errorf("Parse with key %q: %v; want it refused as a case variant", key, err)
		}
	}
	if _, err := Parse([]byte(`{"to":["reviewer_agent"],"title":"x","reſponse":1}`)); err != nil {
		t.Errorf("an extra with a long s was refused: %v", err)
	}
}
