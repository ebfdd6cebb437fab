package worktree

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plant writes a program that notes each run in a marker file and passes
// its input through (as a filter would), and returns both paths.
func plant(t *testing.T) (program, marker string) {
	t.Helper()
	dir := t.TempDir()
	program, marker = filepath.Join(dir, "agent-program"), filepath.Join(dir, "ran")
	script := "#!/bin/sh\necho \"$0 $*\" >> '" + marker + "'\ncat\n"
	if err := os.WriteFile(program, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return program, marker
}

// ran says whether the planted program ran, and forgets it.
func ran(marker string) bool {
	_, err := os.Stat(marker)
	os.Remove(marker)
	return err == nil
}

// everyVerb runs each verb of the package on the tree and returns their
// errors by name.
func everyVerb(r *Repo, tree Tree) map[string]error {
	ctx := context.Background()
	errs := map[string]error{}
	_, errs["Changes"] = r.Changes(ctx, tree)
	_, errs["Diff"] = r.Diff(ctx, tree, false)
	_, errs["Diff --stat"] = r.Diff(ctx, tree, true)
	_, errs["Unsaved"] = r.Unsaved(ctx, tree)
	_, errs["Remove"] = r.Remove(ctx, tree, false)
	_, errs["Commit"] = r.Commit(ctx, tree, "the agent's work")
	_, errs["Merge"] = r.Merge(ctx, tree, "")
	_, errs["Remove (discard)"] = r.Remove(ctx, tree, true)
	return errs
}

// A tree whose .git names a git folder the agent made, with an fsmonitor
// of its own: git would run that program as the person at the first look
// at the files. Every verb refuses the tree, says why, and runs nothing.
func TestATreePointedAtAnAgentsGitFolderIsRefused(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "one\n"})
	tree := add(t, r, AddOptions{Agent: "developer"})
	program, marker := plant(t)
	own := filepath.Join(tree.Path, ".agent-git")
	run(t, tree.Path, "clone", "-q", "--bare", r.Root, own)
	run(t, own, "config", "core.bare", "false")
	run(t, own, "config", "core.fsmonitor", program)
	write(t, filepath.Join(tree.Path, ".git"), "gitdir: "+own+"\n")
	run(t, tree.Path, "read-tree", "HEAD")
	write(t, filepath.Join(tree.Path, "a.txt"), "changed\n")
	run(t, tree.Path, "status", "--short")
	if !ran(marker) {
		t.Fatal("the planted fsmonitor did not run for git at a prompt: the test plants nothing")
	}

	for verb, err := range everyVerb(r, tree) {
		var refused *RefusedError
		if !errors.As(err, &refused) || !errors.Is(err, ErrRefused) || refused.Path != tree.Path || !strings.Contains(err.Error(), own) {
			t.Errorf("%s of a tree whose .git points at %s: %v, want it refused, naming that folder", verb, own, err)
		}
	}
	if ran(marker) {
		t.Error("the agent's fsmonitor ran")
	}
	if _, err := os.Stat(filepath.Join(tree.Path, "a.txt")); err != nil {
		t.Errorf("a refused tree was removed: %v", err)
	}
	// Nor does a link to the real folder pass: git is sent nowhere by a link
	// the agent planted.
	link := filepath.Join(tree.Path, ".link-to-git")
	admin := filepath.Join(r.common, "worktrees", "developer")
	if err := os.Symlink(admin, link); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(tree.Path, ".git"), "gitdir: "+link+"\n")
	if _, err := r.Changes(context.Background(), tree); !errors.Is(err, ErrRefused) {
		t.Errorf("a .git through a link: %v, want it refused", err)
	}
	write(t, filepath.Join(tree.Path, ".git"), "gitdir: "+admin+"\n")
	if _, err := r.Changes(context.Background(), tree); err != nil {
		t.Errorf("the tree pointed back where git left it: %v", err)
	}
}

// A tree whose .git still leads where git left it, but whose agent wrote
// a configuration for it (extensions.worktreeConfig and config.worktree in
// the repository's folder for the tree, and a file that one includes):
// fsmonitor, an external diff, a textconv, a clean, smudge and process
// filter that its .gitattributes names, a hook folder in the tree. Every
// verb works, and none of those programs runs.
func TestATreesOwnConfigurationRunsNothing(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "one\n", "b.txt": "two\n"})
	tree := add(t, r, AddOptions{Agent: "developer"})
	program, marker := plant(t)
	run(t, tree.Path, "config", "extensions.worktreeConfig", "true")
	// The named programs are kept out even of the repository's own
	// configuration, which the main checkout reads too.
	run(t, tree.Path, "config", "core.fsmonitor", program)
	run(t, tree.Path, "config", "diff.external", program)
	for _, kv := range [][2]string{
		{"diff.external", program},
		{"diff.agent.textconv", program},
		{"filter.agent.clean", program},
		{"filter.agent.smudge", program},
		{"core.hooksPath", ".agent-hooks"},
	} {
		run(t, tree.Path, "config", "--worktree", kv[0], kv[1])
	}
	included := filepath.Join(tree.Path, ".agent-config")
	write(t, included, "[core]\n\tfsmonitor = "+program+"\n[filter \"agent\"]\n\tprocess = "+program+"\n")
	configWorktree := filepath.Join(r.common, "worktrees", "developer", "config.worktree")
	f, err := os.OpenFile(configWorktree, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("[include]\n\tpath = " + included + "\n")
	f.Close()
	hook := "#!/bin/sh\nexec " + program + " hook\n"
	for _, name := range []string{"pre-commit", "commit-msg", "post-commit", "post-merge", "pre-merge-commit", "reference-transaction"} {
		write(t, filepath.Join(tree.Path, ".agent-hooks", name), hook)
		os.Chmod(filepath.Join(tree.Path, ".agent-hooks", name), 0o755)
	}
	write(t, filepath.Join(tree.Path, ".gitattributes"), "* filter=agent diff=agent\n")
	write(t, filepath.Join(tree.Path, "a.txt"), "one, by the agent\n")
	run(t, tree.Path, "status", "--short")
	if !ran(marker) {
		t.Fatal("the planted configuration ran nothing for git at a prompt: the test plants nothing")
	}

	ctx := context.Background()
	c, err := r.Changes(ctx, tree)
	if err != nil || c.Added != 1 || c.Untracked < 1 {
		t.Errorf("changes %+v, %v", c, err)
	}
	diff, err := r.Diff(ctx, tree, false)
	if err != nil || !strings.Contains(diff, "+one, by the agent") {
		t.Errorf("diff %q, %v", diff, err)
	}
	committed, err := r.Commit(ctx, tree, "the agent's work")
	if err != nil || committed.Commit == "" || len(committed.Files) < 2 {
		t.Fatalf("commit %+v, %v", committed, err)
	}
	if got := run(t, r.Root, "show", committed.Commit+":a.txt"); got != "one, by the agent\n" {
		t.Errorf("the commit holds a.txt as %q", got)
	}
	if _, err := r.Merge(ctx, tree, ""); err != nil {
		t.Errorf("merge: %v", err)
	}
	if got := read(t, filepath.Join(r.Root, "a.txt")); got != "one, by the agent\n" {
		t.Errorf("main's a.txt after the merge: %q", got)
	}
	if _, err := r.Remove(ctx, tree, false); err != nil {
		t.Errorf("remove of a merged tree: %v", err)
	}
	if ran(marker) {
		t.Error("a program of the tree's configuration ran")
	}
}

// The person's repository may send hooks to a folder of the checkout
// (core.hooksPath = .githooks); an agent's branch can change what is there.
// A merge of its work runs none of them.
func TestAMergeRunsNoHookTheAgentsBranchBrings(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "one\n"})
	run(t, r.Root, "config", "core.hooksPath", ".githooks")
	tree := add(t, r, AddOptions{Agent: "developer"})
	program, marker := plant(t)
	for _, name := range []string{"pre-merge-commit", "post-merge", "post-commit", "reference-transaction"} {
		write(t, filepath.Join(tree.Path, ".githooks", name), "#!/bin/sh\nexec "+program+" hook\n")
		os.Chmod(filepath.Join(tree.Path, ".githooks", name), 0o755)
	}
	run(t, tree.Path, "-c", "core.hooksPath=/dev/null", "add", "-A")
	run(t, tree.Path, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "hooks")
	if _, err := r.Merge(context.Background(), tree, ""); err != nil {
		t.Fatal(err)
	}
	if ran(marker) {
		t.Error("a hook from the agent's branch ran at the merge")
	}
	run(t, r.Root, "commit", "-q", "--allow-empty", "-m", "the person's own")
	if !ran(marker) {
		t.Error("the hook did not run for the person's own commit: the test plants nothing")
	}
}

// worktree_copy copies the main checkout's ignored secrets in at each up.
// An agent that made a folder of its tree a link would have them written
// wherever the link points; a link in the main checkout would copy in a
// file from outside it. Both are refused, and nothing is written.
func TestACopyGoesThroughNoLink(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t, map[string]string{".gitignore": ".env\nconfig/*.local\n", "a.txt": "one\n"})
	write(t, filepath.Join(r.Root, "config", "db.local"), "password=main\n")
	write(t, filepath.Join(r.Root, ".env"), "TOKEN=main\n")
	copies := []string{"config/*.local", ".env"}
	tree := add(t, r, AddOptions{Agent: "developer", Copy: copies})

	loot := t.TempDir()
	os.RemoveAll(filepath.Join(tree.Path, "config"))
	if err := os.Symlink(loot, filepath.Join(tree.Path, "config")); err != nil {
		t.Fatal(err)
	}
	_, err := r.Add(ctx, AddOptions{Agent: "developer", Copy: copies})
	if !errors.Is(err, ErrLink) || !strings.Contains(err.Error(), filepath.Join(tree.Path, "config")) {
		t.Errorf("add with the tree's config/ a link: %v, want ErrLink naming it", err)
	}
	if entries, _ := os.ReadDir(loot); len(entries) > 0 {
		t.Errorf("a secret was copied through the link: %v", entries)
	}

	os.Remove(filepath.Join(tree.Path, "config"))
	os.Remove(filepath.Join(tree.Path, ".env"))
	stolen := filepath.Join(loot, "stolen")
	if err := os.Symlink(stolen, filepath.Join(tree.Path, ".env")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Add(ctx, AddOptions{Agent: "developer", Copy: copies}); !errors.Is(err, ErrLink) {
		t.Errorf("add with the tree's .env a link to nowhere: %v, want ErrLink", err)
	}
	if _, err := os.Lstat(stolen); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the link's target was written: %v", err)
	}

	outside := filepath.Join(t.TempDir(), "id_ed25519")
	write(t, outside, "a key of the person's\n")
	if err := os.Symlink(outside, filepath.Join(r.Root, "config", "key.local")); err != nil {
		t.Fatal(err)
	}
	_, err = r.Add(ctx, AddOptions{Agent: "tester", Copy: copies})
	if !errors.Is(err, ErrLink) || !strings.Contains(err.Error(), "key.local") {
		t.Errorf("add with a link out of the main checkout to copy: %v, want ErrLink naming it", err)
	}
}

// A submodule's git folder is the agent's to write, configuration and all:
// what its files hold is looked at without it, and counts as work.
func TestASubmodulesFilesCountWithoutItsConfiguration(t *testing.T) {
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "protocol.file.allow")
	t.Setenv("GIT_CONFIG_VALUE_0", "always")
	lib := newRepo(t, map[string]string{"lib.go": "package lib\n"})
	r := newRepo(t, map[string]string{"main.go": "package main\n"})
	run(t, r.Root, "submodule", "add", "-q", lib.Root, "vendor/lib")
	commitAll(t, r.Root, "add the submodule")
	tree := add(t, r, AddOptions{Agent: "developer"})
	sub := filepath.Join(tree.Path, "vendor", "lib")
	program, marker := plant(t)
	run(t, sub, "config", "core.fsmonitor", program)
	write(t, filepath.Join(sub, "lib.go"), "package lib // changed\n")
	run(t, sub, "status", "--short")
	if !ran(marker) {
		t.Fatal("the submodule's fsmonitor did not run for git at a prompt: the test plants nothing")
	}
	_, err := r.Remove(context.Background(), tree, false)
	var unsaved *UnsavedError
	if !errors.As(err, &unsaved) || !strings.Contains(err.Error(), "lib.go (in submodule vendor/lib)") {
		t.Errorf("remove of a tree with a change in a submodule: %v", err)
	}
	if ran(marker) {
		t.Error("the submodule's fsmonitor ran")
	}
}

// A commit on a detached HEAD moves the tree's HEAD, as git would.
func TestACommitOnADetachedHeadMovesIt(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t, map[string]string{"a.txt": "one\n"})
	tree := add(t, r, AddOptions{Agent: "developer"})
	run(t, tree.Path, "switch", "-q", "--detach")
	write(t, filepath.Join(tree.Path, "a.txt"), "detached\n")
	committed, err := r.Commit(ctx, tree, "work")
	if err != nil {
		t.Fatal(err)
	}
	if head := strings.TrimSpace(run(t, tree.Path, "rev-parse", "HEAD")); head != committed.Commit {
		t.Errorf("the tree's HEAD is %s, not the commit %s", head, committed.Commit)
	}
	if status := run(t, tree.Path, "status", "--short"); status != "" {
		t.Errorf("the tree after the commit:\n%s", status)
	}
	if again, err := r.Commit(ctx, tree, "nothing"); err != nil || again.Commit != "" {
		t.Errorf("a commit of a clean tree: %+v, %v", again, err)
	}
}
