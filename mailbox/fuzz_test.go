package mailbox

import (
	"bytes"
	"testing"
)

// FuzzParse checks that no input makes Parse panic, and that whatever it
// accepts survives Encode and Parse unchanged.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{"id":"01a20000-0000-7000-8000-000000000001","timestamp":"2026-11-22T08:57:00.123Z","from":"developer_agent","to":["reviewer_agent"],"title":"Code review","priority":"normal","type":"request","content":"x","requires_response":true,"correlation_id":"c","in_reply_to":"i","x_extra":[1,{"a":null}]}`,
		`{"to":"b","title":"t"}`,
		`{"to":["*"],"title":"t","seq":4,"delivered_at":"2026-11-22T08:57:00Z"}`,
		`{"title":"résumé <b> & \u2028","content":"line\nline\t\u0001","timestamp":"2026-11-22T10:57:00.5+02:00"}`,
		`{"x_a":"1","x_b":1e3,"x_c":[true,null],"x_d":{"e":{}}}`,
		`{"title":5}`, `[]`, `{`, ``, `null`, `{"to":null}`, `{"timestamp":"x"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(data)
		if err != nil {
			return
		}
		first, err := m.Encode()
		if err != nil {
			t.Fatalf("Encode of a parsed message: %v", err)
		}
		again, err := Parse(first)
		if err != nil {
			t.Fatalf("Parse of an encoded message: %v\n%s", err, first)
		}
		second, err := again.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, second) {
			t.Fatalf("round trip changed the message:\n%s\n%s", first, second)
		}
	})
}
