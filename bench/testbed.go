package bench

import (
	"fmt"
	"os"
	"strings"

	"switchboard/mailbox"
	"switchboard/workspace"
)

// maxAgents keeps agent names to three digits.
const maxAgents = 999

// testbed is a temporary workspace: a team in which everyone may write to
// everyone.
type testbed struct {
	root   string
	agents []string
	// store is how the bench posts: like `switchboard send`, without fsync
	// (see the package comment).
	store *mailbox.Store
}

// newTestbed writes the rules of a team of n agents into a new temporary
// folder in dir (empty: the system's) and makes every mailbox, so that
// mailboxes can be watched before a router starts.
func newTestbed(dir string, n int) (*testbed, error) {
	root, err := os.MkdirTemp(dir, "switchboard-bench-")
	if err != nil {
		return nil, fmt.Errorf("create bench workspace: %w", err)
	}
	ws := &testbed{root: root, store: workspace.New(root).Store}
	ws.store.Durable = false
	var rulesFile strings.Builder
	rulesFile.WriteString("allowed_interactions:\n")
	for i := range n {
		agent := fmt.Sprintf("agent-%03d", i+1)
		ws.agents = append(ws.agents, agent)
		fmt.Fprintf(&rulesFile, "  %s:\n    can_send_to: [\"*\"]\n    can_receive_from: [\"*\"]\n", agent)
	}
	if err := os.WriteFile(workspace.New(root).RulesPath(), []byte(rulesFile.String()), 0o600); err != nil {
		ws.remove()
		return nil, fmt.Errorf("write bench rules: %w", err)
	}
	for _, agent := range ws.agents {
		if err := ws.store.Ensure(agent); err != nil {
			ws.remove()
			return nil, fmt.Errorf("bench workspace: %w", err)
		}
	}
	return ws, nil
}

func (ws *testbed) remove() error {
	if err := os.RemoveAll(ws.root); err != nil {
		return fmt.Errorf("remove bench workspace: %w", err)
	}
	return nil
}
