package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"switchboard/internal/tmux"
	"switchboard/profile"
)

// WorktreeConfig says how a spawn with a worktree is timed.
type WorktreeConfig struct {
	Binary   string    // the switchboard binary
	Files    int       // files in the repository (DefaultWorktreeFiles when 0)
	Runs     int       // spawns of each kind; the median is kept (DefaultWorktreeRuns when 0)
	Dir      string    // where the repository is made (the system's temporary folder when "")
	Progress io.Writer // where progress goes; nil for nowhere
}

// Defaults of the worktree run.
const (
	DefaultWorktreeFiles = 10_000
	DefaultWorktreeRuns  = 5
)

// WorktreeResult is the median time of a spawn without a worktree, with
// one, and of `git worktree add` alone on the same repository.
type WorktreeResult struct {
	Files     int           `json:"files"`
	Runs      int           `json:"runs"`
	Spawn     time.Duration `json:"spawn_ns"`
	SpawnTree time.Duration `json:"spawn_worktree_ns"`
	GitAdd    time.Duration `json:"git_worktree_add_ns"`
}

// AddWorktree adds the worktree's figures to the result.
func (r *Result) AddWorktree(w *WorktreeResult) { r.Worktree = w }

// check checks the numbers a person gives, as given: a zero is no default.
func (cfg WorktreeConfig) check() error {
	if cfg.Files < 1 {
		return want("worktree files", "must be at least 1")
	}
	return nil
}

// RunWorktree makes a git repository of cfg.Files files that is also a
// workspace, brings its team up in tmux, and times, in turn, a spawn
// without a worktree, a spawn with one, and `git worktree add` by itself.
func RunWorktree(ctx context.Context, cfg WorktreeConfig) (*WorktreeResult, error) {
	if cfg.Files <= 0 {
		cfg.Files = DefaultWorktreeFiles
	}
	if cfg.Runs <= 0 {
		cfg.Runs = DefaultWorktreeRuns
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	if !tmux.Installed() {
		return nil, fmt.Errorf("%w: tmux is not installed", ErrNoTmux)
	}
	if _, err := exec.LookPath("git"); err != nil {
		return nil, fmt.Errorf("git is not installed: %w", err)
	}
	dir, err := os.MkdirTemp(cfg.Dir, "switchboard-bench-worktree-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	root := filepath.Join(dir, "repo")
	t := &teamRun{cfg: TeamConfig{Agents: 2, Binary: cfg.Binary}, root: root, socket: fmt.Sprintf("sbbench-tree-%d", os.Getpid()),
		env: []string{"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@localhost", "GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@localhost"}}
	fmt.Fprintf(cfg.Progress, "worktree: a repository of %d files\n", cfg.Files)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	if err := t.write(profile.KindShell, restingShell); err != nil {
		return nil, err
	}
	if err := writeRepository(ctx, t, cfg.Files); err != nil {
		return nil, err
	}
	defer t.down()
	if out, err := t.switchboard(ctx, "up", "-d", "--no-console", "--socket", t.socket); err != nil {
		return nil, fmt.Errorf("up: %w\n%s", err, out)
	}
	timed := func(args ...string) (time.Duration, error) {
		start := time.Now()
		if out, err := t.switchboard(ctx, args...); err != nil {
			return 0, fmt.Errorf("%v: %w\n%s", args, err, out)
		}
		return time.Since(start), nil
	}
	var plain, tree, add []time.Duration
	for i := range cfg.Runs {
		fmt.Fprintf(cfg.Progress, "worktree: run %d of %d\n", i+1, cfg.Runs)
		d, err := timed("spawn", "--profile", t.name(1), "--name", fmt.Sprintf("plain-%d", i))
		if err != nil {
			return nil, err
		}
		plain = append(plain, d)
		if d, err = timed("spawn", "--profile", t.name(1), "--name", fmt.Sprintf("tree-%d", i), "--worktree"); err != nil {
			return nil, err
		}
		tree = append(tree, d)
		start := time.Now()
		if out, err := t.git(ctx, "worktree", "add", "-q", "-b", fmt.Sprintf("floor-%d", i), filepath.Join(dir, "floor", fmt.Sprint(i)), "HEAD"); err != nil {
			return nil, fmt.Errorf("git worktree add: %w\n%s", err, out)
		}
		add = append(add, time.Since(start))
	}
	return &WorktreeResult{Files: cfg.Files, Runs: cfg.Runs, Spawn: median(plain), SpawnTree: median(tree), GitAdd: median(add)}, nil
}

// writeRepository fills the workspace with files, a hundred a folder, and
// commits them all.
func writeRepository(ctx context.Context, t *teamRun, files int) error {
	for i := range files {
		path := filepath.Join(t.root, "src", fmt.Sprintf("d%03d", i/100), fmt.Sprintf("f%03d.txt", i%100))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, fmt.Appendf(nil, "file %d\n", i), 0o644); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(t.root, ".gitignore"), []byte("mailboxes/\n"), 0o644); err != nil {
		return err
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "bench"}} {
		if out, err := t.git(ctx, args...); err != nil {
			return fmt.Errorf("git %v: %w\n%s", args, err, out)
		}
	}
	return nil
}

// git runs git in the workspace, as its commands run.
func (t *teamRun) git(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = t.root
	cmd.Env = append(os.Environ(), t.env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
