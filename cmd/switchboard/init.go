package main

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"switchboard/profile"
	"switchboard/workspace"

	"github.com/spf13/cobra"
)

type initOptions struct {
	dir   string
	force bool
}

func newInitCmd(io *streams, g *globals) *cobra.Command {
	opts := &initOptions{}
	cmd := &cobra.Command{
		Use:   "init [--force]",
		Short: "Write the default team (rules and agent profiles) into the current folder",
		Long: `Write communication_rules.yaml and agents/ for the default team (master_agent,
developer_agent, reviewer_agent, tester_agent) into the current folder, or into
--root. Existing files are kept unless --force is given. The mailboxes/ folder
is made too, with a .gitignore of its own, so that in a git repository the
team's mail is never committed (your own .gitignore stays as it is).`,
		Example: `  mkdir team && cd team && switchboard init
  switchboard init --root ~/projects/team --force`,
		Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.dir = g.root
			if opts.dir == "" {
				wd, err := os.Getwd()
				if err != nil {
					return err
				}
				opts.dir = wd
			}
			return runInit(io, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.force, "force", false, "overwrite existing files")
	return cmd
}

// writeDefaultTeam writes the default team and its mailboxes folder into
// dir, saying each file it wrote.
func writeDefaultTeam(io *streams, dir string, force bool) error {
	written, err := profile.WriteDefaultTeam(dir, force)
	if err != nil {
		return err
	}
	for _, path := range written {
		rel, _ := filepath.Rel(dir, path)
		fmt.Fprintf(io.out, "wrote %s\n", rel)
	}
	return workspace.New(dir).MakeMailboxes()
}

// initIfNone writes the default team into the folder up runs in (--root,
// or the current one) when that folder, and none above it, holds a team:
// up --init.
func initIfNone(io *streams, g *globals) error {
	_, err := findWorkspace(g)
	if !errors.Is(err, workspace.ErrNotFound) {
		return nil // a team is there (or what is wrong, up says next)
	}
	dir := cmp.Or(g.root, os.Getenv("SWITCHBOARD_ROOT")) // where findWorkspace looked
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	fmt.Fprintf(io.out, "no team in %s: writing the default team there\n", dir)
	return writeDefaultTeam(io, dir, false)
}

func runInit(io *streams, opts *initOptions) error {
	if err := os.MkdirAll(opts.dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", opts.dir, err)
	}
	if err := writeDefaultTeam(io, opts.dir, opts.force); err != nil {
		return err
	}
	// Said as the person can run it from here: switchboard is not on
	// every newcomer's PATH yet.
	sb := invocation("")
	fmt.Fprintf(io.out, `
The default team is in %s. Next:
  %s up                      # the team in tmux, and the master
  %s master                  # or the master alone, in one terminal: it routes every message
  %s send --as developer_agent --to reviewer_agent --title "Please review"
  %s inbox --as reviewer_agent
`, opts.dir, sb, sb, sb, sb)
	return nil
}
