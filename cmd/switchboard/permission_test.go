package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"switchboard/mailbox"
	"switchboard/profile"
	"switchboard/workspace"
)

// bridge is a workspace with a running master and a helper, h1, spawned
// under developer_agent from the reviewer's profile, whose permission
// prompts go to its parent.
type bridge struct {
	t    *testing.T
	root string
	ws   *workspace.Workspace
}

func newBridge(t *testing.T, reviewerProfile string) *bridge {
	t.Helper()
	root := t.TempDir()
	if _, err := profile.WriteDefaultTeam(root, false); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(root, "agents", "reviewer_agent.yaml"), reviewerProfile)
	ws := workspace.New(root)
	err := ws.UpdateSpawned(func(all map[string]workspace.Spawned) error {
		all["h1"] = workspace.Spawned{Profile: "reviewer_agent", Parent: "developer_agent"}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	m := startMaster(t, root)
	t.Cleanup(func() { m.stop(t) })
	return &bridge{t: t, root: root, ws: ws}
}

// prompt runs the helper's permission hook for a Bash command, as its
// client would, in the background; the returned function waits for its
// answer.
func (b *bridge) prompt(agent, command string) func() map[string]any {
	b.t.Helper()
	return promptHook(b.t, b.root, agent, command)
}

// request waits for the permission request in the parent's inbox and
// returns its id.
func (b *bridge) request(parent, title string) string {
	b.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		entries, _ := b.ws.Store.List(parent, mailbox.Unread)
		for _, e := range entries {
			if m, err := mailbox.Load(e.Path); err == nil && m.Title == title {
				b.ws.Store.MarkRead(parent, e)
				return m.ID
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	var files []string
	filepath.WalkDir(filepath.Join(b.root, "mailboxes"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.Contains(path, "/log/") {
			rel, _ := filepath.Rel(b.root, path)
			files = append(files, rel)
		}
		return nil
	})
	spawned, _ := os.ReadFile(filepath.Join(b.root, "mailboxes", "spawned.json"))
	b.t.Fatalf("no request %q reached %s; the mailboxes hold:\n%s\nspawned.json: %s", title, parent, strings.Join(files, "\n"), spawned)
	return ""
}

func (b *bridge) run(args ...string) string {
	b.t.Helper()
	cmd := exec.Command("switchboard", args...)
	cmd.Env = append(os.Environ(), "SWITCHBOARD_ROOT="+b.root, "SWITCHBOARD_AGENT=", "TMUX=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.t.Fatalf("switchboard %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func decisionOf(res map[string]any) (behavior, message string, remembered bool) {
	spec, _ := res["hookSpecificOutput"].(map[string]any)
	d, _ := spec["decision"].(map[string]any)
	behavior, _ = d["behavior"].(string)
	message, _ = d["message"].(string)
	_, remembered = d["updatedPermissions"]
	return behavior, message, remembered
}

// TestAHelpersPermissionPromptGoesToItsParent: the helper's client would
// ask the person whether to run a command; its parent is asked instead,
// and its answer decides: allow runs it, deny does not and says why,
// always runs it and every later call it covers without asking, and no
// answer in time is deny.
func TestAHelpersPermissionPromptGoesToItsParent(t *testing.T) {
	b := newBridge(t, "kind: claude\ncommand: claude\napproval_timeout: 8s\n")

	answer := b.prompt("h1", "make build")
	id := b.request("developer_agent", "[PERMISSION] h1 wants to run Bash: make build")
	b.run("reply", id, "--option", "allow", "--as", "developer_agent")
	if behavior, _, _ := decisionOf(answer()); behavior != "allow" {
		t.Errorf("allow: the client was told %q", behavior)
	}

	answer = b.prompt("h1", "rm -rf build")
	id = b.request("developer_agent", "[PERMISSION] h1 wants to run Bash: rm -rf build")
	b.run("reply", id, "--option", "deny", "--content", "not before the release", "--as", "developer_agent")
	if behavior, message, _ := decisionOf(answer()); behavior != "deny" || message != "switchboard: developer_agent denied this: not before the release" {
		t.Errorf("deny: the client was told %q, %q", behavior, message)
	}

	answer = b.prompt("h1", "npm test")
	id = b.request("developer_agent", "[PERMISSION] h1 wants to run Bash: npm test")
	b.run("reply", id, "--option", "always", "--as", "developer_agent")
	if behavior, _, remembered := decisionOf(answer()); behavior != "allow" || !remembered {
		t.Errorf("always: the client was told %q, remembered %v", behavior, remembered)
	}
	if got := b.run("approvals"); !strings.Contains(got, "h1     Bash(npm *)  always  developer_agent") {
		t.Errorf("approvals lists:\n%s", got)
	}
	if behavior, _, _ := decisionOf(b.prompt("h1", "npm run lint")()); behavior != "allow" {
		t.Errorf("a call always covers: the client was told %q; want allow, without a request", behavior)
	}

	if behavior, message, _ := decisionOf(b.prompt("h1", "curl example.com")()); behavior != "deny" || !strings.Contains(message, "developer_agent did not answer within 8s") {
		t.Errorf("no answer: the client was told %q, %q", behavior, message)
	}

	// A never given ahead answers at once.
	b.run("approvals", "set", "h1", "never", "git push *", "--as", "developer_agent")
	if behavior, message, _ := decisionOf(b.prompt("h1", "git push origin main")()); behavior != "deny" || !strings.Contains(message, "developer_agent said never to Bash(git push *)") {
		t.Errorf("a call a never covers: the client was told %q, %q", behavior, message)
	}

	// The team's own agents keep their pane: nothing is decided for them.
	if res := b.prompt("developer_agent", "make build")(); len(res) != 0 {
		t.Errorf("a top-level agent's prompt was answered: %v; want it left to the pane", res)
	}
}
