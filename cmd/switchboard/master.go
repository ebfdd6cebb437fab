package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"switchboard/mailbox"
	"switchboard/master"
	"switchboard/workspace"
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
  switchboard master --hub 'nats://gpu:2f9c...@10.0.0.5:4222' --host gpu`,
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
			settings, err := hubSettings(ws, opts.hub)
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

// masterOptionsEnv carries a master's options to switchboard-link master
// (package linkcmd's MasterOptionsEnv, which this program does not link).
const masterOptionsEnv = "SWITCHBOARD_MASTER_OPTIONS"

// runMasterOnHub hands the master of a host of a team across machines over
// to switchboard-link, the program that speaks NATS, with the options made
// here: it takes this process's place.
func runMasterOnHub(opts *masterOptions) error {
	program, err := findProgram(linkProgram)
	if err != nil {
		return fmt.Errorf("this workspace joins a team across machines, whose master runs in %w", err)
	}
	data, err := json.Marshal(opts.Options)
	if err != nil {
		return err
	}
	env := append(os.Environ(), masterOptionsEnv+"="+string(data))
	return syscall.Exec(program, []string{program, "master", "--root", opts.root}, env)
}

// hubGiven are the flags that join a team across machines, as given.
type hubGiven struct {
	workspace.HubSettings
	credentials string // a file of the credentials a NATS server gave this host
}

// hubFlags are the flags that join a team across machines.
func hubFlags(f *pflag.FlagSet, given *hubGiven) {
	s := &given.HubSettings
	f.StringVar(&s.URL, "hub", "", "join a team across machines through the hub at this URL (kept for later starts)")
	f.StringVar(&s.Host, "host", "", "this host's name in the team across machines (with --hub)")
	f.StringVar(&s.Team, "team", "", "the team's name on the hub (with --hub; default: main)")
	f.StringVar(&s.CA, "hub-ca", "", "a PEM file of the authority of the hub's TLS certificate, when the system does not trust it (with --hub)")
	f.StringVar(&given.credentials, "hub-creds", "", "a NATS credentials file, or a user's nkey seed, that a NATS server of your own gave this host, when the URL has no password (with --hub; kept for later starts)")
}

// hubSettings keeps the hub settings given, or reads those kept before.
func hubSettings(ws *workspace.Workspace, flags hubGiven) (workspace.HubSettings, error) {
	given := flags.HubSettings
	if given.URL == "" {
		if given.Host != "" || given.Team != "" || given.CA != "" || flags.credentials != "" {
			return given, usageError("--host, --team, --hub-ca and --hub-creds go with --hub URL: the hub to join")
		}
		kept, _, err := ws.Hub()
		return kept, err
	}
	if given.Host == "" {
		return given, usageError("--hub needs --host NAME: this host's name in the team, as the hub's line for it says")
	}
	if err := mailbox.ValidateAgentName(given.Host); err != nil {
		return given, usageError("--host %q: a host's name is lowercase letters, digits, _ and - (%v)", given.Host, err)
	}
	if kept, ok, _ := ws.Hub(); ok && kept.Host == given.Host {
		// The same host joining again keeps the authority and the
		// credentials it was given.
		given.CA = cmp.Or(given.CA, kept.CA)
		if flags.credentials == "" {
			given.Credentials = kept.Credentials
		}
	}
	if given.CA != "" {
		abs, err := filepath.Abs(given.CA)
		if err != nil {
			return given, err
		}
		if _, err := os.Stat(abs); err != nil {
			return given, usageError("--hub-ca %s: %v", given.CA, err)
		}
		given.CA = abs
	}
	if flags.credentials != "" {
		data, err := os.ReadFile(flags.credentials)
		if err != nil {
			return given, usageError("--hub-creds %s: %v", flags.credentials, err)
		}
		if !hasUserSeed(data) {
			return given, usageError("--hub-creds %s is neither a NATS credentials file nor a user's nkey seed: give the file the server's operator (or switchboard hub config --nkeys) made for host %s", flags.credentials, given.Host)
		}
		given.Credentials = string(data)
	}
	return given, ws.SetHub(given)
}

// hasUserSeed tells whether data hold a line that is a user's nkey seed,
// as a credentials file and a seed file do. (The hub's program checks the
// rest when the master joins: this one links no NATS.)
func hasUserSeed(data []byte) bool {
	for line := range strings.Lines(string(data)) {
		if strings.HasPrefix(strings.TrimSpace(line), "SU") {
			return true
		}
	}
	return false
}
