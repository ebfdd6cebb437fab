package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"switchboard/desk"
	"switchboard/view/mcpserver"
)

// TestTheToolsAndTheCommandsSayTheSameOfAMessage: each input of the send,
// reply and ask tools that the command has as a flag is explained in the
// same words, and the default the tool states is the flag's.
func TestTheToolsAndTheCommandsSayTheSameOfAMessage(t *testing.T) {
	ctx := context.Background()
	srv := mcpserver.New("developer_agent", func() (*desk.Desk, error) { panic("no call opens a desk") }, "test")
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	root := newRootCmd(&streams{in: strings.NewReader(""), out: io.Discard, errOut: io.Discard}, &globals{})
	for _, tool := range tools.Tools {
		if tool.Name != "send" && tool.Name != "reply" && tool.Name != "ask" {
			continue
		}
		seen++
		cmd, _, err := root.Find([]string{tool.Name})
		if err != nil {
			t.Fatal(err)
		}
		properties, _ := tool.InputSchema.(map[string]any)["properties"].(map[string]any)
		shared := 0
		for name, p := range properties {
			flag := cmd.Flags().Lookup(strings.ReplaceAll(name, "_", "-"))
			if flag == nil {
				continue
			}
			shared++
			described, _ := p.(map[string]any)["description"].(string)
			help, def, _ := strings.Cut(described, " (default ")
			if !strings.HasPrefix(flag.Usage, help) || help == "" {
				t.Errorf("%s: the tool's %s is %q, the flag --%s %q", tool.Name, name, described, flag.Name, flag.Usage)
			}
			if def = strings.TrimSuffix(def, ")"); def != "" && def != flag.DefValue {
				t.Errorf("%s: the tool's %s defaults to %q, the flag --%s to %q", tool.Name, name, def, flag.Name, flag.DefValue)
			}
		}
		if shared < 4 {
			t.Errorf("%s: %d inputs of the tool are flags of the command; want 4 or more", tool.Name, shared)
		}
	}
	if seen != 3 {
		t.Errorf("found %d of the tools send, reply and ask", seen)
	}
}
