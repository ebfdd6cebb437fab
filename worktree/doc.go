// Package worktree gives an agent a git worktree of its own: a checkout on
// its own branch, beside the repository's main one, so that agents that
// write code never edit the same files, and a helper's half-done change is
// never mixed with its parent's.
//
// It drives the git command line (go-git cannot add linked worktrees), one
// verb per method of Repo: Add, Diff, Changes, Merge, Remove. An agent's
// tree is found by its branch, switchboard/<agent>; the commit it started
// from is kept as the ref refs/switchboard/base/<agent>, so git keeps it and
// knows it without a record of switchboard's.
//
// Nothing here throws work away unasked: Remove refuses a tree with
// uncommitted files or commits no other branch holds, and says which; Merge
// refuses a dirty tree and, on a conflict, aborts and leaves both branches
// as they were.
package worktree
