package main

import (
	"os"

	"github.com/spf13/cobra"

	"switchboard/master"
)

type masterOptions struct {
	root string
	master.Options
}

func newMasterCmd(io *streams, g *globals) *cobra.Command {
	opts := &masterOptions{}
	cmd := &cobra.Command{
		Use:   "master [--poll D]",
		Short: "Run the master process in the foreground: route every message",
		Long: `Run the master process of the workspace in the foreground. It watches every
agent's outbox, applies the rules, delivers into inboxes, tells senders of
blocked and rejected messages, and appends every routed message to the audit
log (mailboxes/log/messages.jsonl). One master runs per workspace; stop it with
Ctrl-C or SIGTERM. A master killed at any instant and started again delivers
every message exactly once.`,
		Example: `  switchboard master
  switchboard master --poll 1s        # on NFS or other filesystems without inotify
  SWITCHBOARD_TMUX_COMMANDS=process switchboard master   # a tmux process per command, no control connection`,
		Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, err := findWorkspace(g)
			if err != nil {
				return err
			}
			opts.root = ws.Root
			opts.Log = io.errOut
			opts.CommandsByProcess = os.Getenv(master.CommandsByProcessEnv) == "process"
			return master.New(opts.root, opts.Options).Run(cmd.Context())
		},
	}
	f := cmd.Flags()
	f.DurationVar(&opts.Poll, "poll", 0, "scan outboxes at this interval instead of using inotify")
	f.DurationVar(&opts.Settle, "settle", master.DefaultSettle, "how long a file that is not valid JSON must stay unchanged before it is rejected")
	f.DurationVar(&opts.Reconcile, "reconcile", master.DefaultReconcile, "interval of the full scan that backs up inotify")
	f.BoolVar(&opts.NoFsync, "no-fsync", false, "skip fsync (faster; a power cut may lose recent mail, a crash does not)")
	return cmd
}
