package worktree

import (
	"context"
	"strconv"
	"strings"
)

// treeDiff are the switches of every diff made in a tree: no program of a
// diff driver's, and no look inside a submodule, which git would take by
// running git there, in a git folder the agent writes.
var treeDiff = []string{"--no-ext-diff", "--no-textconv", "--ignore-submodules=dirty"}

// Diff is the tree's changes against its base (as it is now), committed or not: git's
// patch (or its --stat summary), then the files git does not track yet.
func (r *Repo) Diff(ctx context.Context, t Tree, stat bool) (string, error) {
	args := append([]string{"diff", "--no-color"}, treeDiff...)
	if stat {
		args = append(args, "--stat")
	}
	base, err := r.base(ctx, t.Agent)
	if err != nil {
		return "", err
	}
	c, err := r.tree(t)
	if err != nil {
		return "", err
	}
	defer c.close()
	out, err := c.git(ctx, append(args, base, "--")...)
	if err != nil {
		return "", err
	}
	untracked, err := c.untracked(ctx)
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
	c, err := r.tree(t)
	if err != nil {
		return Changes{}, err
	}
	defer c.close()
	out, err := c.git(ctx, append(append([]string{"diff", "--numstat"}, treeDiff...), base, "--")...)
	if err != nil {
		return Changes{}, err
	}
	var ch Changes
	for _, l := range lines(out) {
		fields := strings.Fields(l)
		if len(fields) < 3 {
			continue
		}
		ch.Files++
		added, _ := strconv.Atoi(fields[0]) // "-" for a binary file
		deleted, _ := strconv.Atoi(fields[1])
		ch.Added += added
		ch.Deleted += deleted
	}
	untracked, err := c.untracked(ctx)
	ch.Untracked = len(untracked)
	return ch, err
}

func (c *checkout) untracked(ctx context.Context) ([]string, error) {
	out, err := c.git(ctx, "ls-files", "--others", "--exclude-standard")
	return lines(out), err
}
