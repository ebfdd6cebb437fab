package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitEnv is a git identity of its own, and none of the user's settings.
var gitEnv = []string{
	"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
	"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com",
	"GIT_CONFIG_GLOBAL=/dev/null",
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), gitEnv...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// cwdProfile is an agent that writes down the folder it was started in,
// then keeps what is typed to it; in a worktree, with .env copied in, when
// tree is set.
func cwdProfile(display string, tree bool) string {
	script := `pwd > "$SWITCHBOARD_ROOT/cwd-$SWITCHBOARD_AGENT"; cat > "$SWITCHBOARD_ROOT/recv-$SWITCHBOARD_AGENT"`
	p := fmt.Sprintf("display_name: %s\nkind: generic\ncommand: [\"sh\", \"-c\", %q]\n", display, script)
	if tree {
		p += "worktree: true\nworktree_copy: [.env]\n"
	}
	return p
}

func (tm *team) cwdOf(agent string) string {
	tm.t.Helper()
	var cwd string
	tm.waitFor("the folder of "+agent, func() bool {
		data, err := os.ReadFile(filepath.Join(tm.root, "cwd-"+agent))
		cwd = strings.TrimSpace(string(data))
		return err == nil && cwd != ""
	})
	os.Remove(filepath.Join(tm.root, "cwd-"+agent))
	return cwd
}

// TestATeamWorksInWorktrees brings up a team whose developer and tester
// each work in a git worktree of their own, and follows their work: edits
// of the same file that never meet, a clean merge and a conflicting one, a
// down and up that keep every tree, and helpers whose trees go only when
// nothing would be lost.
func TestATeamWorksInWorktrees(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: install it (apt-get install -y git) to run the worktree tests")
	}
	tm := newTeam(t)
	tm.env = append(os.Environ(), gitEnv...)
	writeTestFile(t, filepath.Join(tm.root, "agents", "developer_agent.yaml"), cwdProfile("Developer Agent", true))
	writeTestFile(t, filepath.Join(tm.root, "agents", "tester_agent.yaml"), cwdProfile("Tester Agent", true))
	writeTestFile(t, filepath.Join(tm.root, "agents", "reviewer_agent.yaml"), cwdProfile("Reviewer Agent", false))
	writeTestFile(t, filepath.Join(tm.root, ".gitignore"), "mailboxes/\ncwd-*\nrecv-*\nwhich-*\n.env\n")
	writeTestFile(t, filepath.Join(tm.root, "auth.go"), "package auth\n")
	writeTestFile(t, filepath.Join(tm.root, ".env"), "TOKEN=from-main\n")
	gitIn(t, tm.root, "init", "-q", "-b", "main")
	gitIn(t, tm.root, "add", "-A")
	gitIn(t, tm.root, "commit", "-q", "-m", "the team")

	tm.must("up", "-d", "--no-console", "--socket", tm.socket)
	devTree := filepath.Join(tm.root, ".switchboard", "worktrees", "developer_agent")
	testTree := filepath.Join(tm.root, ".switchboard", "worktrees", "tester_agent")
	if got := tm.cwdOf("developer_agent"); got != devTree {
		t.Fatalf("the developer started in %s, want its tree %s", got, devTree)
	}
	if got := tm.cwdOf("tester_agent"); got != testTree {
		t.Fatalf("the tester started in %s, want its tree %s", got, testTree)
	}
	if got := tm.cwdOf("reviewer_agent"); got != tm.root {
		t.Errorf("the reviewer, without a tree, started in %s", got)
	}
	if env, _ := os.ReadFile(filepath.Join(devTree, ".env")); string(env) != "TOKEN=from-main\n" {
		t.Errorf(".env in the developer's tree reads %q", env)
	}
	if status := gitIn(t, tm.root, "status", "--short"); status != "" {
		t.Errorf("the trees show in the main checkout's status:\n%s", status)
	}

	// Both edit the same file; neither sees the other's edit.
	writeTestFile(t, filepath.Join(devTree, "auth.go"), "package auth\n\nfunc Login() {}\n")
	writeTestFile(t, filepath.Join(testTree, "auth.go"), "package auth // tested\n")
	if got, _ := os.ReadFile(filepath.Join(tm.root, "auth.go")); string(got) != "package auth\n" {
		t.Errorf("the main checkout's auth.go changed: %q", got)
	}
	listing := tm.must("agents")
	for _, want := range []string{"BRANCH", "switchboard/developer_agent  +2/-0", "switchboard/tester_agent     +1/-1"} {
		if !strings.Contains(listing, want) {
			t.Errorf("agents does not show %q:\n%s", want, listing)
		}
	}
	if stat := tm.must("diff", "developer_agent", "--stat"); !strings.Contains(stat, "auth.go | 2 ++") {
		t.Errorf("diff --stat says %q", stat)
	}

	// A dirty tree is not merged; a committed one is.
	if out, code := tm.switchboard("merge", "developer_agent"); code == 0 || !strings.Contains(out, "uncommitted") || !strings.Contains(out, "ask developer_agent to commit its work") {
		t.Errorf("merge of a dirty tree: exit %d, %s", code, out)
	}
	gitIn(t, devTree, "commit", "-q", "-am", "login")
	// An agent may not bring its own work home, nor a peer's.
	for _, as := range []string{"developer_agent", "tester_agent"} {
		if out, code := tm.switchboard("merge", "developer_agent", "--as", as); code != exitRefused {
			t.Errorf("merge by %s: exit %d (%s); want 3", as, code, out)
		}
	}
	if out := tm.must("merge", "developer_agent"); !strings.HasPrefix(out, "merged 1 commit of developer_agent into main") {
		t.Errorf("merge said %q", out)
	}
	if got, _ := os.ReadFile(filepath.Join(tm.root, "auth.go")); !strings.Contains(string(got), "Login") {
		t.Errorf("main's auth.go after the merge: %q", got)
	}
	// The tester's edit now conflicts: aborted, and the tester is told.
	gitIn(t, testTree, "commit", "-q", "-am", "tested")
	head := gitIn(t, tm.root, "rev-parse", "HEAD")
	out, code := tm.switchboard("merge", "tester_agent")
	if code == 0 || !strings.Contains(out, "conflicts in auth.go") || !strings.Contains(out, "tester_agent was mailed") {
		t.Errorf("a conflicting merge: exit %d, %s", code, out)
	}
	if gitIn(t, tm.root, "rev-parse", "HEAD") != head || gitIn(t, tm.root, "status", "--short") != "" {
		t.Error("a conflicting merge changed the main checkout")
	}
	tm.waitUnread("tester_agent", "Merge into main conflicts in 1 files")

	// Work not committed survives down and up, in the same tree.
	writeTestFile(t, filepath.Join(testTree, "notes.txt"), "half done\n")
	tm.must("down")
	tm.must("up", "-d", "--no-console", "--socket", tm.socket)
	if got := tm.cwdOf("tester_agent"); got != testTree {
		t.Errorf("after up the tester started in %s", got)
	}
	if got, _ := os.ReadFile(filepath.Join(testTree, "notes.txt")); string(got) != "half done\n" {
		t.Errorf("the tester's uncommitted file after down and up: %q", got)
	}

	// A helper's tree starts from its parent's branch; closed with work in
	// it, it stays; closed clean, it goes; discarded, it goes after its list.
	var helper struct{ Name string }
	out = tm.must("spawn", "--as", "developer_agent", "--profile", "reviewer_agent", "--worktree", "--json")
	if err := json.Unmarshal([]byte(out), &helper); err != nil {
		t.Fatalf("spawn said %s: %v", out, err)
	}
	helperTree := filepath.Join(tm.root, ".switchboard", "worktrees", helper.Name)
	if got := tm.cwdOf(helper.Name); got != helperTree {
		t.Fatalf("the helper started in %s", got)
	}
	if got, _ := os.ReadFile(filepath.Join(helperTree, "auth.go")); !strings.Contains(string(got), "Login") {
		t.Errorf("the helper's tree did not start from its parent's branch: auth.go reads %q", got)
	}
	writeTestFile(t, filepath.Join(helperTree, "review.md"), "looks fine\n")
	out = tm.must("close", helper.Name)
	if !strings.Contains(out, "kept the worktree of "+helper.Name) || !strings.Contains(out, "review.md") {
		t.Errorf("close of a helper with work said %q", out)
	}
	if _, err := os.Stat(filepath.Join(helperTree, "review.md")); err != nil {
		t.Errorf("the helper's work is gone: %v", err)
	}
	if diff := tm.must("diff", helper.Name); !strings.Contains(diff, "untracked: review.md") {
		t.Errorf("diff of a closed helper's kept tree: %q", diff)
	}

	out = tm.must("spawn", "--as", "developer_agent", "--profile", "reviewer_agent", "--worktree", "--json")
	json.Unmarshal([]byte(out), &helper)
	clean := filepath.Join(tm.root, ".switchboard", "worktrees", helper.Name)
	tm.cwdOf(helper.Name)
	if out := tm.must("close", helper.Name); !strings.Contains(out, "removed the worktree of "+helper.Name) {
		t.Errorf("close of a clean helper said %q", out)
	}
	if _, err := os.Stat(clean); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a clean helper's tree stayed: %v", err)
	}

	out = tm.must("spawn", "--as", "developer_agent", "--profile", "reviewer_agent", "--worktree", "--json")
	json.Unmarshal([]byte(out), &helper)
	doomed := filepath.Join(tm.root, ".switchboard", "worktrees", helper.Name)
	tm.cwdOf(helper.Name)
	writeTestFile(t, filepath.Join(doomed, "scratch.txt"), "x\n")
	if out := tm.must("close", helper.Name, "--discard"); !strings.Contains(out, "lost: ?? scratch.txt") {
		t.Errorf("close --discard said %q", out)
	}
	if _, err := os.Stat(doomed); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a discarded tree stayed: %v", err)
	}
}

// TestAWorktreeOutsideARepositoryIsAClearError starts a team whose
// developer asks for a worktree in a folder git does not know.
func TestAWorktreeOutsideARepositoryIsAClearError(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: install it (apt-get install -y git) to run the worktree tests")
	}
	tm := newTeam(t)
	writeTestFile(t, filepath.Join(tm.root, "agents", "developer_agent.yaml"), cwdProfile("Developer Agent", true))
	out, code := tm.switchboard("up", "-d", "--no-console", "--socket", tm.socket)
	if code == 0 || !strings.Contains(out, "worktree: true in "+filepath.Join(tm.root, "agents", "developer_agent.yaml")) || !strings.Contains(out, "git init") {
		t.Errorf("up outside a repository: exit %d, %s", code, out)
	}
}
