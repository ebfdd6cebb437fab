package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"switchboard/mailbox"
	"switchboard/profile"
)

// mcpSession starts `switchboard mcp` as a client would, over stdio, in a
// workspace of the default team.
func mcpSession(tb testing.TB, root string, args ...string) *mcp.ClientSession {
	tb.Helper()
	cmd := exec.Command("switchboard", append([]string{"mcp"}, args...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "SWITCHBOARD_ROOT="+root, "SWITCHBOARD_AGENT=")
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	tb.Cleanup(cancel)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		tb.Fatalf("connect to switchboard mcp: %v", err)
	}
	tb.Cleanup(func() { cs.Close() })
	return cs
}

// TestTheMCPServerOverStdio: the built binary serves the tools on stdio;
// the rules refuse there as they do on the command line.
func TestTheMCPServerOverStdio(t *testing.T) {
	root := t.TempDir()
	if _, err := profile.WriteDefaultTeam(root, false); err != nil {
		t.Fatal(err)
	}
	cs := mcpSession(t, root, "--as", "tester_agent")
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if !slices.Contains(names, "send") || !slices.Contains(names, "reply") {
		t.Errorf("tools: %v", names)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "send", Arguments: map[string]any{"to": []string{"reviewer_agent"}, "title": "Found a bug"}})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || text != "BLOCKED by the rules: tester_agent → reviewer_agent: Should go through developer first (the attempt is logged)" {
		t.Errorf("a blocked send: error %v, %q", res.IsError, text)
	}
}

// BenchmarkMCPToolCall is a status call through a running server, beside
// the same through `switchboard status --json`, a process each time.
//
//	go test -run '^$' -bench MCP ./cmd/switchboard
func BenchmarkMCPToolCall(b *testing.B) {
	root := b.TempDir()
	if _, err := profile.WriteDefaultTeam(root, false); err != nil {
		b.Fatal(err)
	}
	b.Run("mcp status", func(b *testing.B) {
		cs := mcpSession(b, root, "--as", "developer_agent")
		for range b.N {
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "status"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cli status", func(b *testing.B) {
		for range b.N {
			cmd := exec.Command("switchboard", "status", "--json", "--as", "developer_agent")
			cmd.Env = append(os.Environ(), "SWITCHBOARD_ROOT="+root, "SWITCHBOARD_AGENT=")
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
	})
	b.Run("mcp start to first answer", func(b *testing.B) {
		for range b.N {
			cs := mcpSession(b, root, "--as", "developer_agent")
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "status"}); err != nil {
				b.Fatal(err)
			}
			cs.Close()
		}
	})
}

// TestHelpersThroughTheTools: with the team up, the developer spawns a
// helper with a task through the spawn tool, waits for its response with
// wait, and closes it with close.
func TestHelpersThroughTheTools(t *testing.T) {
	tm := newTeam(t)
	tm.must("up", "-d", "--no-console", "--socket", tm.socket)
	tm.waitIdle("developer_agent")
	cs := mcpSession(t, tm.root, "--as", "developer_agent")
	ctx := context.Background()
	call := func(tool string, args map[string]any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %v", tool, err, res.Content)
		}
		data, _ := json.Marshal(res.StructuredContent)
		var out map[string]any
		json.Unmarshal(data, &out)
		return out
	}
	spawned := call("spawn", map[string]any{"profile": "reviewer_agent", "name": "helper", "task": "Review auth.go"})
	if spawned["name"] != "helper" || spawned["parent"] != "developer_agent" || spawned["task_id"] == "" {
		t.Fatalf("spawn: %v", spawned)
	}
	tm.waitFor("the task in the helper's inbox", func() bool {
		_, err := tm.store.Find("helper", spawned["task_id"].(string))
		return err == nil
	})
	tm.must("reply", spawned["task_id"].(string), "--as", "helper", "--content", "auth.go is fine")
	got := call("wait", map[string]any{"agent": "helper", "timeout_seconds": 20})
	if r, _ := got["response"].(map[string]any); r["content"] != "auth.go is fine" {
		t.Errorf("wait: %v", got)
	}
	if closed := call("close", map[string]any{"agent": "helper"}); fmt.Sprint(closed["agents"]) != "[helper]" {
		t.Errorf("close: %v", closed)
	}
}

// TestTheMCPServerOutlivesBrokenRules: with a rules file that does not load
// (being edited), the server starts, reads the agent's mail, and says why
// it cannot send.
func TestTheMCPServerOutlivesBrokenRules(t *testing.T) {
	root := t.TempDir()
	if _, err := profile.WriteDefaultTeam(root, false); err != nil {
		t.Fatal(err)
	}
	if err := mailbox.NewStore(root).Ensure("tester_agent"); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(root, "communication_rules.yaml"), "allowed_interactions:\n  tester_agent: {}\n   bad: x\n")
	cs := mcpSession(t, root, "--as", "tester_agent")
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "inbox"})
	if err != nil || res.IsError {
		t.Fatalf("inbox with broken rules: %v %v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "send", Arguments: map[string]any{"to": []string{"developer_agent"}, "title": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.Contains(text, "the rules did not load: ") || !strings.Contains(text, "communication_rules.yaml:3:") {
		t.Errorf("send with broken rules: %v %q", res.IsError, text)
	}
}

// TestPipedInputIsAnsweredWhole: `printf ... | switchboard mcp` with bad
// lines among the good is answered line by line, the call in flight
// included, and the server exits 0 at the end of its input: ten times in
// ten.
func TestPipedInputIsAnsweredWhole(t *testing.T) {
	root := t.TempDir()
	if _, err := profile.WriteDefaultTeam(root, false); err != nil {
		t.Fatal(err)
	}
	input := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}
{not json
{"jsonrpc":"2.0","method":"notifications/initialized"}
[]
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"status","arguments":{}}}
`
	for run := range 10 {
		cmd := exec.Command("switchboard", "mcp", "--as", "tester_agent")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "SWITCHBOARD_ROOT="+root, "SWITCHBOARD_AGENT=")
		cmd.Stdin = strings.NewReader(input)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("run %d: switchboard mcp ended with %v; it wrote:\n%s", run, err, out)
		}
		var codes []string
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var r struct {
				ID    any `json:"id"`
				Error *struct {
					Code int `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("run %d: a line that is not JSON: %q", run, line)
			}
			if r.Error != nil {
				codes = append(codes, fmt.Sprint(r.Error.Code))
			} else {
				codes = append(codes, fmt.Sprint(r.ID))
			}
		}
		slices.Sort(codes) // errors are written as the lines are read, answers when ready
		if got := strings.Join(codes, " "); got != "-32600 -32700 1 2" {
			t.Fatalf("run %d: replies (ids, or error codes) %q, want %q:\n%s", run, got, "-32600 -32700 1 2", out)
		}
	}
}
