package worktree

import (
	"context"
	"strconv"
	"strings"
)

// Diff is the tree's changes against its base (as it is now), committed or not: git's
// patch (or its --stat summary), then the files git does not track yet.
func (r *Repo) Diff(ctx context.Context, t Tree, stat bool) (string, error) {
	args := []string{"diff", "--no-color", "--no-ext-diff"}
	if stat {
		args = append(args, "--stat")
	}
	base, err := r.base(ctx, t.Agent)
	if err != nil {
		return "", err
	}
	out, err := git(ctx, t.Path, append(args, base, "--")...)
	if err != nil {
		return "", err
	}
	untracked, err := r.untracked(ctx, t)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(out)
	for _, f := range untracked {
		b.WriteString("untracked: " + f + "\n")
	}
	return b.String(), nil
}

// Changes counts a tree's changes against its base.
type Changes struct {
	Files     int `json:"files"`
	Added     int `json:"added"`
	Deleted   int `json:"deleted"`
	Untracked int `json:"untracked"`
}

// Changes counts the lines the tree added and deleted against its base,
// committed or not, and the files git does not track yet.
func (r *Repo) Changes(ctx context.Context, t Tree) (Changes, error) {
	base, err := r.base(ctx, t.Agent)
	if err != nil {
		return Changes{}, err
	}
	out, err := git(ctx, t.Path, "diff", "--numstat", "--no-ext-diff", base, "--")
	if err != nil {
		return Changes{}, err
	}
	var c Changes
	for _, l := range lines(out) {
		fields := strings.Fields(l)
		if len(fields) < 3 {
			continue
		}
		c.Files++
		added, _ := strconv.Atoi(fields[0]) // "-" for a binary file
		deleted, _ := strconv.Atoi(fields[1])
		c.Added += added
		c.Deleted += deleted
	}
	untracked, err := r.untracked(ctx, t)
	c.Untracked = len(untracked)
	return c, err
}

func (r *Repo) untracked(ctx context.Context, t Tree) ([]string, error) {
	out, err := git(ctx, t.Path, "ls-files", "--others", "--exclude-standard")
	return lines(out), err
}
