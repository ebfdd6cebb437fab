// Package worktree gives an agent a git worktree of its own: a checkout on
// its own branch, beside the repository's main one, so that agents that
// write code never edit the same files, and a helper's half-done change is
// never mixed with its parent's.
//
// It drives the git command line (go-git cannot add linked worktrees), one
// verb per method of Repo: Add, Diff, Changes, Commit, Merge, Remove. An
// agent's tree is found by its branch, switchboard/<agent>; the commit it
// started from is kept as the ref refs/switchboard/base/<agent>, so git
// keeps it and knows it without a record of switchboard's.
//
// Nothing here throws work away unasked: Remove refuses a tree with
// uncommitted files or commits no other branch holds, and says which; Merge
// refuses a dirty tree and, on a conflict, aborts and leaves both branches
// as they were.
//
// Nor does git run, as the person, a program the agent chose. The agent
// writes its tree and the repository's folder for it, where git would find
// configuration naming programs (fsmonitor, filters, textconv, hooks). Git
// is run in a tree only once its .git leads to the repository's own record
// of it and back, and then with a git folder of switchboard's that reads no
// configuration of the tree's (see checkout); every command, in the main
// checkout too, runs with no hook, fsmonitor, external diff or pager. A
// tree that fails the check is a *RefusedError. Files copied in from the
// main checkout go through no link (ErrLink).
package worktree
