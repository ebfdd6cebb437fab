package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"switchboard/desk"
)

// reply is one line the server wrote.
type reply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      any             `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// serve runs a server on input to its end, with lines of at most maxLine
// bytes, and returns what it wrote. The server has no workspace: every
// tool says so.
func serve(t testing.TB, input string, maxLine int) []reply {
	t.Helper()
	open := func() (*desk.Desk, error) { return nil, errors.New("no workspace here") }
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out bytes.Buffer
	err := New("tester_agent", open, "test").Run(ctx, &Stdio{In: strings.NewReader(input), Out: &out, MaxLine: maxLine})
	if ctx.Err() != nil {
		t.Fatalf("the server did not end at the end of its input: %v", err)
	}
	var replies []reply
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if line == "" {
			continue
		}
		var r reply
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.JSONRPC != "2.0" {
			t.Fatalf("the server wrote a line that is not a JSON-RPC 2.0 message: %q (%v)", line, err)
		}
		replies = append(replies, r)
	}
	return replies
}

// answerTo is the reply with id, or nil.
func answerTo(replies []reply, id any) *reply {
	for i := range replies {
		if fmt.Sprint(replies[i].ID) == fmt.Sprint(id) {
			return &replies[i]
		}
	}
	return nil
}

func ping(id string) string { return `{"jsonrpc":"2.0","id":"` + id + `","method":"ping"}` + "\n" }

// These lines each made `switchboard mcp` exit, dropping every call in
// flight. Each is answered now with the JSON-RPC error, and the ping after
// it is answered too.
func TestEveryBadLineIsAnsweredAndTheServerGoesOn(t *testing.T) {
	const maxLine = 1 << 20
	bad := []struct {
		name, line string
		code       int64
		id         any
	}{
		{"not JSON", `{not json`, -32700, nil},
		{"not UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\xfe\"}", -32700, nil},
		{"an empty batch", `[]`, -32600, nil},
		{"a batch", `[` + strings.TrimSpace(ping("in-batch")) + `]`, -32600, nil},
		{"JSON-RPC 1.0", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, -32600, "7"},
		{"a string", `"ping"`, -32600, nil},
		{"an id that is an object", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, nil},
		{"a line over the limit", `{"jsonrpc":"2.0","id":"big","method":"ping","params":{"x":"` + strings.Repeat("x", maxLine) + `"}}`, -32600, nil},
		{"nesting 20,000 deep", strings.Repeat("[", 20000) + strings.Repeat("]", 20000), -32700, nil},
	}
	for _, b := range bad {
		t.Run(b.name, func(t *testing.T) {
			replies := serve(t, b.line+"\n"+ping("after"), maxLine)
			if len(replies) != 2 {
				t.Fatalf("want the error and the ping's answer, got %d replies: %+v", len(replies), replies)
			}
			got := replies[0]
			if got.Error == nil || got.Error.Code != b.code || fmt.Sprint(got.ID) != fmt.Sprint(b.id) {
				t.Errorf("first reply: %+v, want error %d with id %v", got, b.code, b.id)
			}
			if a := answerTo(replies, "after"); a == nil || a.Error != nil {
				t.Errorf("the ping after the bad line was not answered: %+v", replies)
			}
		})
	}
}

// A second call with the id of one not yet answered is refused under that
// id; the first is answered once.
func TestAReusedIDIsRefusedAndTheFirstCallStands(t *testing.T) {
	replies := serve(t, ping("same")+ping("same"), 0)
	if len(replies) != 2 {
		t.Fatalf("want two replies, got %+v", replies)
	}
	errorsSeen, results := 0, 0
	for _, r := range replies {
		if fmt.Sprint(r.ID) != "same" {
			t.Errorf("reply with id %v, want same", r.ID)
		}
		if r.Error != nil {
			errorsSeen++
		} else {
			results++
		}
	}
	// The second may come after the first was answered, and is then a call
	// of its own.
	if results == 0 || errorsSeen+results != 2 {
		t.Errorf("want the first call answered, got %+v", replies)
	}
}

// `echo REQ | switchboard mcp` was answered one time in ten: the end of
// the input cancelled the call in flight. Every call read is answered now.
func TestEveryCallReadIsAnsweredAtTheEndOfInput(t *testing.T) {
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"echo","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"status","arguments":{}}}` + "\n"
	for i := range 20 {
		replies := serve(t, initialize+call, 0)
		if a := answerTo(replies, 2); a == nil || a.Result == nil {
			t.Fatalf("run %d: the call was not answered before the server ended: %+v", i, replies)
		}
	}
}

// FuzzStdioInput feeds the server any bytes: it answers only in JSON-RPC
// 2.0, never stops reading on them, and answers the ping after them.
func FuzzStdioInput(f *testing.F) {
	for _, seed := range []string{
		`{not json`, "\xff\xfe", `[]`, `{"jsonrpc":"1.0","id":7,"method":"ping"}`, `null`, `{}`,
		`{"jsonrpc":"2.0","id":"probe","method":"ping"}`, `{"jsonrpc":"2.0","id":1}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"send"}}`, strings.Repeat("[", 300),
		"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\r\n\r\n", strings.Repeat("x", 5000),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		replies := serve(t, string(data)+"\n"+ping("probe"), 4096)
		if answerTo(replies, "probe") == nil {
			t.Fatalf("the ping after %q was not answered: %+v", data, replies)
		}
	})
}
