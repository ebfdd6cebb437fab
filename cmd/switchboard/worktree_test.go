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

// newTreeTeam is a team in a git repository whose developer and tester
// each work in a worktree, with .env copied in, and whose reviewer does not.
func newTreeTeam(t *testing.T) *team {
	t.Helper()
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
	return tm
}

// TestATeamWorksInWorktrees brings up a team whose developer and tester
// each work in a git worktree of their own, and follows their work: edits
// of the same file that never meet, a clean merge and a conflicting one, a
// down and up that keep every tree, and helpers whose trees go only when
// nothing would be lost.
func TestATeamWorksInWorktrees(t *testing.T) {
	tm := newTreeTeam(t)
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
	if out := tm.must("close", helper.Name, "--discard", "--yes"); !strings.Contains(out, "lost: ?? scratch.txt") {
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

// hintsIn are the commands a command's output gives between backquotes.
func hintsIn(out string) []string {
	var found []string
	parts := strings.Split(out, "`")
	for i := 1; i < len(parts); i += 2 {
		found = append(found, parts[i])
	}
	return found
}

// hint is the one hint of out that holds want.
func (tm *team) hint(out, want string) string {
	tm.t.Helper()
	for _, h := range hintsIn(out) {
		if strings.Contains(h, want) {
			return h
		}
	}
	tm.t.Fatalf("no hint with %q in:\n%s", want, out)
	return ""
}

// runHint runs a hint exactly as printed, with sh, as the person would
// paste it in the workspace.
func (tm *team) runHint(hint string) (string, int) {
	tm.t.Helper()
	cmd := exec.Command("sh", "-c", hint)
	cmd.Dir = tm.root
	cmd.Env = append(tm.env, "SWITCHBOARD_ROOT="+tm.root, "SWITCHBOARD_AGENT=", "TMUX=")
	out, err := cmd.CombinedOutput()
	code := 0
	if exitErr, ok := err.(*exec.ExitError); ok {
		code = exitErr.ExitCode()
	} else if err != nil {
		tm.t.Fatalf("run %s: %v", hint, err)
	}
	return string(out), code
}

// spawnHelper spawns a reviewer with a worktree under the developer and
// returns its name and tree.
func (tm *team) spawnHelper() (name, tree string) {
	tm.t.Helper()
	var helper struct{ Name string }
	out := tm.must("spawn", "--as", "developer_agent", "--profile", "reviewer_agent", "--worktree", "--json")
	if err := json.Unmarshal([]byte(out), &helper); err != nil {
		tm.t.Fatalf("spawn said %s: %v", out, err)
	}
	tm.cwdOf(helper.Name)
	return helper.Name, filepath.Join(tm.root, ".switchboard", "worktrees", helper.Name)
}

// TestTheHintsOfACloseWorkAfterIt closes helpers whose trees hold work not
// committed and runs, exactly as printed, what close and then merge say
// to do: commit and merge it, then remove the tree; or throw it away.
func TestTheHintsOfACloseWorkAfterIt(t *testing.T) {
	tm := newTreeTeam(t)
	tm.must("up", "-d", "--no-console", "--socket", tm.socket)

	helper, tree := tm.spawnHelper()
	writeTestFile(t, filepath.Join(tree, "review.md"), "looks fine\n")
	writeTestFile(t, filepath.Join(tree, "auth.go"), "package auth // reviewed\n")
	out := tm.must("close", helper)
	if !strings.Contains(out, "kept the worktree of "+helper) {
		t.Fatalf("close of a helper with work said %q", out)
	}
	mergeHint := tm.hint(out, "merge "+helper)
	if !strings.HasSuffix(mergeHint, "merge "+helper+" --commit") {
		t.Errorf("the hint to bring uncommitted work home is %q", mergeHint)
	}
	// Without --commit, the merge of a closed agent's dirty tree says to
	// commit with the merge, not to ask the agent, which is gone.
	refused, code := tm.switchboard("merge", helper)
	if code == 0 || strings.Contains(refused, "ask "+helper) || tm.hint(refused, "merge "+helper) != mergeHint {
		t.Errorf("merge of a closed agent's dirty tree: exit %d, %s", code, refused)
	}
	out, code = tm.runHint(mergeHint)
	if code != 0 || !strings.Contains(out, "committed 2 files "+helper+" had left uncommitted") || !strings.Contains(out, "merged 1 commit of "+helper+" into main") {
		t.Fatalf("%s: exit %d\n%s", mergeHint, code, out)
	}
	if got, _ := os.ReadFile(filepath.Join(tm.root, "review.md")); string(got) != "looks fine\n" {
		t.Errorf("main's review.md after the merge: %q", got)
	}
	if status := gitIn(t, tm.root, "status", "--short"); status != "" {
		t.Errorf("the main checkout after the merge:\n%s", status)
	}
	closeHint := tm.hint(out, "close "+helper)
	out, code = tm.runHint(closeHint)
	if code != 0 || !strings.Contains(out, "removed the worktree of "+helper) {
		t.Fatalf("%s: exit %d\n%s", closeHint, code, out)
	}
	if _, err := os.Stat(tree); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the merged tree stayed: %v", err)
	}
	if branches := gitIn(t, tm.root, "branch", "--list", "switchboard/"+helper); branches != "" {
		t.Errorf("its branch stayed: %s", branches)
	}

	// Closed by its parent, which is no overseer: the hint says who may.
	helper, tree = tm.spawnHelper()
	writeTestFile(t, filepath.Join(tree, "scratch.txt"), "x\n")
	out = tm.must("close", helper, "--as", "developer_agent")
	if !strings.Contains(out, "an overseer (the person, say) may bring it home") {
		t.Errorf("close by the parent said %q", out)
	}
	// Run where no one can answer its question, the hint to discard says
	// what would be lost, closes nothing, and says how to go ahead.
	discardHint := tm.hint(out, "--discard")
	out, code = tm.runHint(discardHint)
	if code != exitRefused || !strings.Contains(out, "1 uncommitted file (?? scratch.txt)") {
		t.Fatalf("%s: exit %d\n%s", discardHint, code, out)
	}
	yesHint := tm.hint(out, "--yes")
	out, code = tm.runHint(yesHint)
	if code != 0 || !strings.Contains(out, "lost: ?? scratch.txt") {
		t.Fatalf("%s: exit %d\n%s", yesHint, code, out)
	}
	if _, err := os.Stat(tree); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a discarded tree stayed: %v", err)
	}
	if out, code := tm.switchboard("close", helper, "--discard"); code == 0 || !strings.Contains(out, "no worktree left") {
		t.Errorf("a second discard: exit %d, %s", code, out)
	}
}

// plantProgram writes a program that notes each run in a marker file, and
// returns both.
func plantProgram(t *testing.T) (program, marker string) {
	dir := t.TempDir()
	program, marker = filepath.Join(dir, "agent-program"), filepath.Join(dir, "ran")
	writeTestFile(t, program, "#!/bin/sh\necho \"$0 $*\" >> '"+marker+"'\ncat\n")
	os.Chmod(program, 0o755)
	return program, marker
}

// TestGitInAnAgentsTreeRunsNothingOfItsChoosing: the developer points its
// tree's .git at a git folder of its own whose fsmonitor is its program;
// the tester leaves its .git alone but writes its program into its tree's
// configuration as fsmonitor, external diff, textconv and filter. No
// command runs either program; the developer's tree shows as refused, and
// what the commands say of it is why.
func TestGitInAnAgentsTreeRunsNothingOfItsChoosing(t *testing.T) {
	tm := newTreeTeam(t)
	tm.must("up", "-d", "--no-console", "--socket", tm.socket)
	devTree := tm.cwdOf("developer_agent")
	testTree := tm.cwdOf("tester_agent")
	program, marker := plantProgram(t)

	own := filepath.Join(devTree, ".agent-git")
	gitIn(t, devTree, "clone", "-q", "--bare", tm.root, own)
	gitIn(t, own, "config", "core.bare", "false")
	gitIn(t, own, "config", "core.fsmonitor", program)
	writeTestFile(t, filepath.Join(devTree, ".git"), "gitdir: "+own+"\n")
	gitIn(t, devTree, "read-tree", "HEAD")
	writeTestFile(t, filepath.Join(devTree, "auth.go"), "package auth // the developer's\n")

	gitIn(t, testTree, "config", "extensions.worktreeConfig", "true")
	for _, kv := range [][2]string{{"core.fsmonitor", program}, {"diff.external", program}, {"diff.agent.textconv", program}, {"filter.agent.clean", program}} {
		gitIn(t, testTree, "config", "--worktree", kv[0], kv[1])
	}
	writeTestFile(t, filepath.Join(testTree, ".gitattributes"), "* filter=agent diff=agent\n")
	writeTestFile(t, filepath.Join(testTree, "auth.go"), "package auth // the tester's\n")
	for _, tree := range []string{devTree, testTree} {
		gitIn(t, tree, "status")
		if _, err := os.Stat(marker); err != nil {
			t.Fatalf("git at a prompt in %s ran no program: the test plants nothing", tree)
		}
		os.Remove(marker)
	}

	listing := tm.must("agents")
	if !strings.Contains(listing, "switchboard/developer_agent  REFUSED") || !strings.Contains(listing, "the worktree of developer_agent is REFUSED: refused to run git in "+devTree) {
		t.Errorf("agents does not show the developer's tree refused:\n%s", listing)
	}
	if !strings.Contains(listing, "switchboard/tester_agent     +1/-1 (1 new)") {
		t.Errorf("agents does not count the tester's changes:\n%s", listing)
	}
	if out, code := tm.switchboard("agents", "--json"); code != 0 || !strings.Contains(out, `"refused": "refused to run git in `) {
		t.Errorf("agents --json: exit %d, %s", code, out)
	}
	for _, args := range [][]string{{"diff", "developer_agent"}, {"diff", "developer_agent", "--stat"}, {"merge", "developer_agent"}, {"merge", "developer_agent", "--commit"}} {
		out, code := tm.switchboard(args...)
		if code == 0 || !strings.Contains(out, "refused to run git in "+devTree+": its .git points to \""+own+"\"") {
			t.Errorf("%s: exit %d, %s", strings.Join(args, " "), code, out)
		}
	}
	if diff := tm.must("diff", "tester_agent"); !strings.Contains(diff, "+package auth // the tester's") {
		t.Errorf("diff of the tester: %s", diff)
	}
	tm.waitIdle("tester_agent")
	if out := tm.must("merge", "tester_agent", "--commit"); !strings.Contains(out, "merged 1 commit of tester_agent into main") {
		t.Errorf("merge --commit of the tester: %s", out)
	}

	// A helper whose tree is refused is closed; its tree stays, untouched.
	helper, tree := tm.spawnHelper()
	gitIn(t, tree, "config", "--worktree", "core.fsmonitor", program) // extensions.worktreeConfig is on
	writeTestFile(t, filepath.Join(tree, ".git"), "gitdir: "+own+"\n")
	out := tm.must("close", helper)
	if !strings.Contains(out, "the worktree of "+helper+" was not removed: refused to run git in "+tree) {
		t.Errorf("close of a helper whose tree is refused said %q", out)
	}
	if out, code := tm.switchboard("close", helper, "--discard"); code != 0 || !strings.Contains(out, "was not removed: refused") {
		t.Errorf("close --discard of a refused tree: exit %d, %s", code, out)
	}
	if _, err := os.Stat(tree); err != nil {
		t.Errorf("a refused tree was removed: %v", err)
	}
	if _, err := os.Stat(marker); err == nil {
		data, _ := os.ReadFile(marker)
		t.Errorf("a program of an agent's choosing ran:\n%s", data)
	}
	// Its hint, once the person has removed the folder, forgets the tree.
	forget := tm.hint(out, "worktree prune")
	if err := os.RemoveAll(tree); err != nil {
		t.Fatal(err)
	}
	if out, code := tm.runHint(forget); code != 0 {
		t.Errorf("%s: exit %d\n%s", forget, code, out)
	}
	if branches := gitIn(t, tm.root, "branch", "--list", "switchboard/"+helper); branches != "" {
		t.Errorf("the branch stayed: %s", branches)
	}
}
