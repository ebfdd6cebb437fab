package main

import (
	"fmt"
	"os"
	"syscall"

	"github.com/spf13/cobra"

	"switchboard/internal/profiling"
	"switchboard/master"
)

type masterOptions struct {
	root string
	hub  hubGiven
	master.Options
}

func newMasterCmd(io *streams, g *globals) *cobra.Command {
	opts := &masterOptions{}
	cmd := &cobra.Command{
		Use:   "master [--poll D] [--hub URL --host NAME [--team T]]",
		Short: "Run the master process in the foreground: route every message",
		Long: `Run the master process of the workspace in the foreground. It watches every
agent's outbox, applies the rules, delivers into inboxes, tells senders of
blocked and rejected messages, and appends every routed message to the audit
log (mailboxes/log/messages.jsonl). One master runs per workspace; stop it with
Ctrl-C or SIGTERM. A master killed at any instant and started again delivers
every message exactly once.

--hub URL --host NAME joins a team across machines through a hub (see
switchboard hub), and is remembered, so that later masters (and up) join by
themselves: in the user's config folder, not in the workspace, since the URL
holds this host's password, which no agent is to read. Only the master
connects to the hub; the agents' lock, state set and bulletin set ask it. This host then runs the agents whose profiles
are in its agents/ folder (and those spawned here); mail for the others goes
through the hub, exactly once, and waits on this disk while the hub is away.
The rules file must be the same on every host: a master whose rules differ
is refused, and says how.`,
		Example: `  switchboard master
  switchboard master --poll 1s        # on NFS or other filesystems without inotify
  SWITCHBOARD_TMUX_COMMANDS=process switchboard master   # a tmux process per command, no control connection
  SWITCHBOARD_HUB_PASSWORD=2f9c... switchboard master --hub nats://10.0.0.5:4222 --host gpu`,
		Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, err := findWorkspace(g)
			if err != nil {
				return err
			}
			if err := ws.MakeMailboxes(); err != nil {
				return err
			}
			opts.root = ws.Root
			opts.Log = io.errOut
			opts.CommandsByProcess = os.Getenv(master.CommandsByProcessEnv) == "process"
			// A password given in the URL leaves the process list at once:
			// the master of a team across machines takes switchboard-link's
			// place, whose arguments hold no URL.
			settings, _, err := hubSettings(ws, opts.hub)
			if err != nil {
				return err
			}
			if settings.URL != "" {
				return runMasterOnHub(opts)
			}
			return master.New(opts.root, opts.Options).Run(cmd.Context())
		},
	}
	f := cmd.Flags()
	f.DurationVar(&opts.Poll, "poll", 0, "scan outboxes at this interval instead of using inotify")
	f.DurationVar(&opts.Settle, "settle", master.DefaultSettle, "how long a file that is not valid JSON must stay unchanged before it is rejected")
	f.DurationVar(&opts.Reconcile, "reconcile", master.DefaultReconcile, "interval of the full scan that backs up inotify")
	f.BoolVar(&opts.NoFsync, "no-fsync", false, "skip fsync (faster; a power cut may lose recent mail, a crash does not)")
	hubFlags(f, &opts.hub)
	return cmd
}

// runMasterOnHub hands the master of a host of a team across machines over
// to switchboard-link, the program that speaks NATS, with the options made
// here: it takes this process's place.
func runMasterOnHub(opts *masterOptions) error {
	program, err := findProgram(linkProgram)
	if err != nil {
		return fmt.Errorf("this workspace joins a team across machines, whose master is a program of its own, and %w", err)
	}
	handed, err := opts.Options.HandOver()
	if err != nil {
		return err
	}
	env := append(os.Environ(), handed)
	profiling.Discard()
	return syscall.Exec(program, []string{program, "master", "--root", opts.root}, env)
}
