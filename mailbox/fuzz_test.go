package mailbox

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
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

// FuzzValidatedMessagesFitTheLimit checks that a message Validate accepts
// is, once delivered, a file its recipient can read: its copy, with the
// largest seq and the longest delivery time, is within MaxFileSize and
// parses. The content is first grown with pad as far as Validate allows,
// so that every input is tried at the limit.
func FuzzValidatedMessagesFitTheLimit(f *testing.F) {
	for _, seed := range []struct{ msg, pad string }{
		{`{"to":"b","title":"t"}`, "x"},
		{`{"to":"b","title":"t"}`, "\x01"},
		{`{"to":"b","title":"t"}`, "<>&"},
		{`{"to":"b","title":"t"}`, "\u2028é\"\\"},
		{`{"to":["a","b","c"],"title":"t","x_deep":[[[[[[[[[[{"k":"v"}]]]]]]]]]]}`, "\n"},
		{`{"to":"b","title":"` + strings.Repeat("ü", 200) + `","correlation_id":"c","in_reply_to":"i"}`, "\t"},
		{`{"to":"b","title":"t","x_big":"` + strings.Repeat("\\u0001", 1000) + `"}`, "y"},
	} {
		f.Add([]byte(seed.msg), seed.pad)
	}
	f.Fuzz(func(t *testing.T, data []byte, pad string) {
		m, err := Parse(data)
		if err != nil {
			return
		}
		if m.From == "" {
			m.From = "developer_agent" // as the master fills it in
		}
		m.Normalize(time.Date(2026, 11, 22, 8, 57, 0, 0, time.UTC))
		if m.Validate() != nil {
			return
		}
		if pad != "" && utf8.ValidString(pad) && encodedSize(pad) > 0 {
			// The most pads Validate accepts: estimated, then checked
			// against Validate itself either side.
			base := m.Content
			grow := func(k int) error { m.Content = base + strings.Repeat(pad, k); return m.Validate() }
			k := max(0, (MaxFileSize-encodedSize(base))/encodedSize(pad))
			k = min(k, (MaxContentSize-len(base))/len(pad))
			for k > 0 && grow(k) != nil {
				k--
			}
			if grow(k) != nil {
				t.Fatalf("the content grown by %d pads is refused, and by none it was accepted", k)
			}
			if grow(k+1) == nil && k+1 <= (MaxContentSize-len(base))/len(pad) {
				t.Fatalf("the size estimate refuses %d pads that Validate accepts", k+1)
			}
			grow(k)
		}
		copy := *m
		copy.Seq = math.MaxInt64
		copy.DeliveredAt = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC) // the master writes UTC
		written, err := copy.Encode()
		if err != nil {
			t.Fatalf("Encode of a validated message: %v", err)
		}
		if len(written) > MaxFileSize {
			t.Fatalf("a validated message is written as %d bytes, over the %d-byte limit its recipient may read", len(written), MaxFileSize)
		}
		if _, err := Parse(written); err != nil {
			t.Fatalf("the copy of a validated message does not parse: %v", err)
		}
	})
}

// FuzzTheStructureWalkFindsWhatTheTokenizerFinds holds the walk that
// checks valid JSON to the tokenizer it stands in for: on every valid input
// both refuse the same, or neither does.
func FuzzTheStructureWalkFindsWhatTheTokenizerFinds(f *testing.F) {
	for _, seed := range []string{
		`{"to":"rev","title":"hi","to":"master_agent"}`,
		`{"to":"rev","x":{"a":1,"a":2},"title":"t"}`,
		`{"t\u006f":"rev","to":"x"}`,
		`{"a":[1,2,{"b":"\"}"}],"c":true,"a":null}`,
		`[["a","a"],"a","a"]`, `"a"`, `12`, `{}`, `{"\ud800":1,"\ufffd":2}`,
		`{"x":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`,
		"{\"a\" : 1 ,\n\t\"b\":-1.5e3, \"c\":false}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !utf8.Valid(data) || !json.Valid(data) {
			return
		}
		walked, tokens := walkStructure(data), tokenStructure(data)
		if (walked == nil) != (tokens == nil) || walked != nil && walked.Error() != tokens.Error() {
			t.Fatalf("%q: the walk says %v, the tokenizer %v", data, walked, tokens)
		}
	})
}
