package worktree

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// newRepo makes a repository with one commit of the files given.
func newRepo(t *testing.T, files map[string]string) *Repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Setenv("GIT_AUTHOR_NAME", "Test")
	t.Setenv("GIT_AUTHOR_EMAIL", "test@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "Test")
	t.Setenv("GIT_COMMITTER_EMAIL", "test@example.com")
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	root := t.TempDir()
	run(t, root, "init", "-q", "-b", "main")
	for name, content := range files {
		write(t, filepath.Join(root, name), content)
	}
	run(t, root, "add", "-A")
	run(t, root, "commit", "-q", "-m", "first")
	r, err := Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// run runs git as a person or an agent would at a prompt: with whatever
// configuration the folder has.
func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, stderr.String())
	}
	return string(out)
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func add(t *testing.T, r *Repo, o AddOptions) Tree {
	t.Helper()
	tree, err := r.Add(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

func commitAll(t *testing.T, dir, msg string) {
	t.Helper()
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", msg)
}

func TestTwoAgentsEditTheSameFileEachInItsOwnTree(t *testing.T) {
	r := newRepo(t, map[string]string{"auth.go": "package auth\n"})
	dev := add(t, r, AddOptions{Agent: "developer"})
	tester := add(t, r, AddOptions{Agent: "tester"})
	if dev.Path == tester.Path || dev.Branch != "switchboard/developer" || !dev.Created {
		t.Fatalf("trees %+v and %+v", dev, tester)
	}
	write(t, filepath.Join(dev.Path, "auth.go"), "package auth // developer\n")
	write(t, filepath.Join(tester.Path, "auth.go"), "package auth // tester\n")
	if got := read(t, filepath.Join(dev.Path, "auth.go")); got != "package auth // developer\n" {
		t.Errorf("the developer's file reads %q", got)
	}
	if got := read(t, filepath.Join(r.Root, "auth.go")); got != "package auth\n" {
		t.Errorf("the main checkout's file reads %q", got)
	}
	if status := run(t, r.Root, "status", "--short"); status != "" {
		t.Errorf("the main checkout is not clean with trees in it:\n%s", status)
	}
	c, err := r.Changes(context.Background(), dev)
	if err != nil || c.Added != 1 || c.Deleted != 1 || c.Files != 1 {
		t.Errorf("changes %+v, %v; want one file, +1 -1", c, err)
	}
	diff, err := r.Diff(context.Background(), dev, false)
	if err != nil || !strings.Contains(diff, "+package auth // developer") {
		t.Errorf("diff %q, %v", diff, err)
	}
}

func TestAMergeBringsCommitsAndAConflictChangesNothing(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t, map[string]string{"a.txt": "one\n", "b.txt": "two\n"})
	dev := add(t, r, AddOptions{Agent: "developer"})
	write(t, filepath.Join(dev.Path, "a.txt"), "one, by the developer\n")
	if _, err := r.Merge(ctx, dev, ""); !errors.As(err, new(*DirtyError)) {
		t.Fatalf("merge of a dirty tree: %v, want a DirtyError", err)
	}
	commitAll(t, dev.Path, "developer's change")
	m, err := r.Merge(ctx, dev, "")
	if err != nil {
		t.Fatal(err)
	}
	if m.Into != "main" || m.Commits != 1 || read(t, filepath.Join(r.Root, "a.txt")) != "one, by the developer\n" {
		t.Fatalf("merged %+v; main's a.txt %q", m, read(t, filepath.Join(r.Root, "a.txt")))
	}
	if parents := strings.Fields(run(t, r.Root, "log", "-1", "--format=%P")); len(parents) != 2 {
		t.Errorf("the merge is not a merge commit: parents %v", parents)
	}
	if c, _ := r.Changes(ctx, dev); c.Files != 0 {
		t.Errorf("after the merge the tree still counts %+v", c)
	}

	tester := add(t, r, AddOptions{Agent: "tester"})
	write(t, filepath.Join(tester.Path, "b.txt"), "two, by the tester\n")
	commitAll(t, tester.Path, "tester's change")
	write(t, filepath.Join(r.Root, "b.txt"), "two, by the person\n")
	commitAll(t, r.Root, "person's change")
	before := run(t, r.Root, "rev-parse", "HEAD")
	_, err = r.Merge(ctx, tester, "")
	var conflict *ConflictError
	if !errors.As(err, &conflict) || len(conflict.Files) != 1 || conflict.Files[0] != "b.txt" {
		t.Fatalf("conflicting merge: %v, want a ConflictError on b.txt", err)
	}
	if after := run(t, r.Root, "rev-parse", "HEAD"); after != before {
		t.Error("a conflicting merge moved main")
	}
	if status := run(t, r.Root, "status", "--short"); status != "" {
		t.Errorf("a conflicting merge left the checkout unclean:\n%s", status)
	}
	if got := read(t, filepath.Join(r.Root, "b.txt")); got != "two, by the person\n" {
		t.Errorf("main's b.txt reads %q", got)
	}
}

func TestRemoveKeepsATreeThatHoldsWork(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t, map[string]string{"a.txt": "one\n"})
	dirtyTree := add(t, r, AddOptions{Agent: "dirty"})
	write(t, filepath.Join(dirtyTree.Path, "new.txt"), "not committed\n")
	committed := add(t, r, AddOptions{Agent: "committed"})
	write(t, filepath.Join(committed.Path, "a.txt"), "changed\n")
	commitAll(t, committed.Path, "unmerged")

	for _, tree := range []Tree{dirtyTree, committed} {
		_, err := r.Remove(ctx, tree, false)
		var unsaved *UnsavedError
		if !errors.As(err, &unsaved) {
			t.Fatalf("remove %s: %v, want an UnsavedError", tree.Agent, err)
		}
		if _, err := os.Stat(tree.Path); err != nil {
			t.Errorf("the tree of %s is gone: %v", tree.Agent, err)
		}
		if !r.hasBranch(ctx, tree.Branch) {
			t.Errorf("the branch of %s is gone", tree.Agent)
		}
	}
	if _, err := r.Remove(ctx, dirtyTree, false); err == nil || !strings.Contains(err.Error(), "new.txt") {
		t.Errorf("the refusal does not name the file: %v", err)
	}

	// A commit made on a detached HEAD in the tree is work too.
	detached := add(t, r, AddOptions{Agent: "detached"})
	run(t, detached.Path, "switch", "-q", "--detach")
	write(t, filepath.Join(detached.Path, "a.txt"), "on a detached HEAD\n")
	commitAll(t, detached.Path, "detached work")
	if _, err := r.Remove(ctx, detached, false); !errors.As(err, new(*UnsavedError)) {
		t.Errorf("remove of a tree with a commit on a detached HEAD: %v, want an UnsavedError", err)
	}

	// Once its commit is on another branch, the tree goes.
	run(t, r.Root, "branch", "keep", committed.Branch)
	if _, err := r.Remove(ctx, committed, false); err != nil {
		t.Fatalf("remove of a tree whose commits another branch holds: %v", err)
	}
	if _, err := os.Stat(committed.Path); !errors.Is(err, os.ErrNotExist) || r.hasBranch(ctx, committed.Branch) {
		t.Errorf("the tree or branch stayed: %v", err)
	}

	lost, err := r.Remove(ctx, dirtyTree, true)
	if err != nil || len(lost.Files) != 1 {
		t.Fatalf("discard: %+v, %v", lost, err)
	}
	if _, err := os.Stat(dirtyTree.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a discarded tree stayed: %v", err)
	}
}

func TestCopiedFilesAreNeverOverwritten(t *testing.T) {
	r := newRepo(t, map[string]string{".gitignore": ".env\nconfig/*.local\n", "a.txt": "one\n"})
	write(t, filepath.Join(r.Root, ".env"), "TOKEN=main\n")
	write(t, filepath.Join(r.Root, "config", "db.local"), "db=main\n")
	tree := add(t, r, AddOptions{Agent: "developer", Copy: []string{".env", "config/*.local", "absent"}})
	if got := read(t, filepath.Join(tree.Path, ".env")); got != "TOKEN=main\n" {
		t.Fatalf(".env in the tree reads %q", got)
	}
	if got := read(t, filepath.Join(tree.Path, "config", "db.local")); got != "db=main\n" {
		t.Fatalf("config/db.local in the tree reads %q", got)
	}
	write(t, filepath.Join(tree.Path, ".env"), "TOKEN=agent\n")
	again := add(t, r, AddOptions{Agent: "developer", Copy: []string{".env"}})
	if again.Created || again.Path != tree.Path {
		t.Errorf("the second add made %+v", again)
	}
	if got := read(t, filepath.Join(tree.Path, ".env")); got != "TOKEN=agent\n" {
		t.Errorf("the agent's .env was overwritten: %q", got)
	}
	if _, err := r.Add(context.Background(), AddOptions{Agent: "other", Copy: []string{"../secret"}}); err == nil {
		t.Error("a file to copy from outside the repository was taken")
	}
}

func TestATreeGetsItsSubmodules(t *testing.T) {
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "protocol.file.allow")
	t.Setenv("GIT_CONFIG_VALUE_0", "always")
	lib := newRepo(t, map[string]string{"lib.go": "package lib\n"})
	r := newRepo(t, map[string]string{"main.go": "package main\n"})
	run(t, r.Root, "submodule", "add", "-q", lib.Root, "vendor/lib")
	commitAll(t, r.Root, "add the submodule")
	tree := add(t, r, AddOptions{Agent: "developer"})
	if got := read(t, filepath.Join(tree.Path, "vendor", "lib", "lib.go")); got != "package lib\n" {
		t.Fatalf("the submodule's file in the tree reads %q", got)
	}
	if _, err := r.Remove(context.Background(), tree, false); err != nil {
		t.Errorf("a clean tree with a submodule is not removed: %v", err)
	}
}

func TestATreeComesBackWithItsWork(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t, map[string]string{"a.txt": "one\n"})
	tree := add(t, r, AddOptions{Agent: "developer"})
	write(t, filepath.Join(tree.Path, "a.txt"), "committed work\n")
	commitAll(t, tree.Path, "work")
	// Its folder goes (a person cleaned up), its branch stays.
	run(t, r.Root, "worktree", "remove", tree.Path)
	back := add(t, r, AddOptions{Agent: "developer", Base: "does-not-matter"})
	if got := read(t, filepath.Join(back.Path, "a.txt")); got != "committed work\n" {
		t.Errorf("the tree came back without its work: %q", got)
	}
	if back.Base != tree.Base {
		t.Errorf("the base moved from %s to %s", tree.Base, back.Base)
	}
	if _, err := r.Find(ctx, "nobody"); !errors.Is(err, ErrNoTree) {
		t.Errorf("find of an agent without a tree: %v", err)
	}
}

func TestATreeStartsFromItsBase(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "one\n"})
	run(t, r.Root, "branch", "release")
	write(t, filepath.Join(r.Root, "a.txt"), "two\n")
	commitAll(t, r.Root, "second")
	tree := add(t, r, AddOptions{Agent: "fixer", Base: "release"})
	if got := read(t, filepath.Join(tree.Path, "a.txt")); got != "one\n" {
		t.Errorf("a tree from release reads %q", got)
	}
	if _, err := r.Add(context.Background(), AddOptions{Agent: "other", Base: "no-such-ref"}); err == nil || !strings.Contains(err.Error(), "no-such-ref") {
		t.Errorf("a base that is no commit: %v", err)
	}
}

func TestWhereATreeCannotBe(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t, map[string]string{"a.txt": "one\n"})
	if _, err := Open(ctx, t.TempDir()); !errors.Is(err, ErrNotRepo) {
		t.Errorf("open outside a repository: %v", err)
	}
	bare := t.TempDir()
	run(t, bare, "init", "-q", "--bare")
	if _, err := Open(ctx, bare); !errors.Is(err, ErrBare) {
		t.Errorf("open of a bare repository: %v", err)
	}
	elsewhere := filepath.Join(t.TempDir(), "elsewhere")
	run(t, r.Root, "worktree", "add", "-q", "-b", Branch("developer"), elsewhere)
	var checkedOut *CheckedOutError
	if _, err := r.Add(ctx, AddOptions{Agent: "developer"}); !errors.As(err, &checkedOut) || checkedOut.Path != elsewhere {
		t.Errorf("a branch checked out elsewhere: %v", err)
	}
}

func TestSetupRunsOnceAndAFailureLeavesNoTree(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t, map[string]string{"a.txt": "one\n"})
	tree := add(t, r, AddOptions{Agent: "developer", Setup: "echo ran >> setup.log"})
	add(t, r, AddOptions{Agent: "developer", Setup: "echo ran >> setup.log"})
	if got := read(t, filepath.Join(tree.Path, "setup.log")); got != "ran\n" {
		t.Errorf("setup ran %q", got)
	}
	_, err := r.Add(ctx, AddOptions{Agent: "broken", Setup: "echo installing; exit 3"})
	var failed *SetupError
	if !errors.As(err, &failed) || !strings.Contains(failed.Output, "installing") {
		t.Fatalf("a failing setup: %v", err)
	}
	if _, err := r.Find(ctx, "broken"); !errors.Is(err, ErrNoTree) || r.hasBranch(ctx, Branch("broken")) {
		t.Errorf("a failed setup left its tree or branch: %v", err)
	}
	start := time.Now()
	_, err = r.Add(ctx, AddOptions{Agent: "slow", Setup: "sleep 60 & wait", SetupTimeout: 200 * time.Millisecond})
	if !errors.As(err, &failed) || time.Since(start) > 30*time.Second {
		t.Errorf("a setup out of time: %v after %s", err, time.Since(start))
	}
}
