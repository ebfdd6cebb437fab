package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// globals are the flags every command takes.
type globals struct {
	root string
	as   string
	json bool
}

// run executes one command line and returns the process's exit code.
func run(args []string, io *streams) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	g := &globals{}
	cmd := newRootCmd(io, g)
	if completing(args) {
		completion(cmd, g)
	}
	cmd.SetArgs(args)
	err := withHint(cmd.ExecuteContext(ctx))
	if err != nil && !errors.Is(err, errSaid) {
		fmt.Fprintf(io.errOut, "switchboard: %v\n", runnable(asCaller(err.Error(), g.as), stagedHere(g)))
	}
	return exitCode(err)
}

func newRootCmd(io *streams, g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:   "switchboard",
		Short: "Run a team of AI coding agents that talk through mailboxes under enforced rules",
		Long: `switchboard runs a team of AI coding agents, each in its own tmux pane, and lets
them talk through file-system mailboxes. One master process per workspace routes
every message exactly once, enforces the allow and forbid rules of
communication_rules.yaml, and numbers every message in an audit log.

Exit codes: 0 done; 1 error; 2 a mistake in the command line (an unknown
command or flag, a bad argument, no such agent, profile or message); 3 refused
by the rules or a lock; 4 timed out.`,
		Example: `  switchboard init                     # write the default team here
  switchboard master                   # route messages (keep it running)
  switchboard send --as developer_agent --to reviewer_agent --title "Review the login change"
  switchboard inbox --as reviewer_agent`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       version(),
	}
	root.SetVersionTemplate("switchboard {{.Version}}\n")
	root.SetOut(io.out)
	root.SetErr(io.errOut)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		// Flags after a mistyped command are parsed as the flags of the
		// command above it, which does not know them: the word is the
		// mistake to name, not the flag.
		if words := cmd.Flags().Args(); cmd.HasSubCommands() && len(words) > 0 {
			return unknownCommand(cmd, words[0])
		}
		return flagMistake(cmd, err)
	})
	flags := root.PersistentFlags()
	flags.StringVar(&g.root, "root", "", "the workspace folder (default: $SWITCHBOARD_ROOT, else the nearest folder up holding communication_rules.yaml)")
	flags.StringVar(&g.as, "as", "", "act as this agent (default: $SWITCHBOARD_AGENT, else operator)")
	flags.BoolVar(&g.json, "json", false, "print JSON for scripts")

	root.AddCommand(
		newInitCmd(io, g),
		newMasterCmd(io, g),
		newSendCmd(io, g),
		newInboxCmd(io, g),
		newReadCmd(io, g),
		newReplyCmd(io, g),
		newAskCmd(io, g),
		newLogCmd(io, g),
		newShowCmd(io, g),
		newRulesCmd(io, g),
		newUpCmd(io, g),
		newDownCmd(io, g),
		newAttachCmd(io, g),
		newAgentsCmd(io, g),
		newUsageCmd(io, g),
		newTopCmd(io, g),
		newWebCmd(io, g),
		newSpawnCmd(io, g),
		newProfilesCmd(io, g),
		newCloseCmd(io, g),
		newDiffCmd(io, g),
		newMergeCmd(io, g),
		newHubCmd(io, g),
		newWaitCmd(io, g),
		newInterruptCmd(io, g),
		newCancelCmd(io, g),
		newApprovalsCmd(io, g),
		newBulletinCmd(io, g),
		newLockCmd(io, g),
		newUnlockCmd(io, g),
		newStateCmd(io, g),
		newStatusCmd(io, g),
		newDoctorCmd(io, g),
		newMCPCmd(io, g),
		newHookCmd(io, g),
		newHooksCmd(io, g),
		newBenchCmd(io, g),
		newDemoPlayCmd(io, g),
		newVersionCmd(io),
	)
	groupCommands(root)
	bashWithoutPackage(root)
	wordsAreCommands(root)
	return root
}

// wordsAreCommands makes a command with subcommands and no run of its own
// (the root, rules, state...) say that a word it is given is no command of
// its, as a usage error of its own: cobra would show the help and exit 0,
// and a script's `switchboard state sett k v` would seem to work. Given no
// word, it shows its help.
func wordsAreCommands(cmd *cobra.Command) {
	if cmd.HasSubCommands() {
		cmd.SuggestionsMinimumDistance = 2 // cobra's default, which only its own messages set
	}
	if cmd.HasSubCommands() && !cmd.Runnable() {
		cmd.Args = cobra.ArbitraryArgs
		cmd.RunE = func(cmd *cobra.Command, words []string) error {
			if len(words) == 0 {
				return cmd.Help()
			}
			return unknownCommand(cmd, words[0])
		}
	}
	for _, sub := range cmd.Commands() {
		wordsAreCommands(sub)
	}
}

// unknownCommand is the usage error of a word that is none of cmd's
// subcommands, with those it may have meant.
func unknownCommand(cmd *cobra.Command, word string) error {
	msg := fmt.Sprintf("unknown command %q for %q (see --help)", word, cmd.CommandPath())
	if near := cmd.SuggestionsFor(word); len(near) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(near, "\n\t")
	}
	return usageError("%s", msg)
}

// args checks the number of positional arguments, as a usage error, and
// that none is blank: no name, id, key or text of this tool is.
func args(min, max int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 && cmd.HasSubCommands() {
			return unknownCommand(cmd, args[0]) // bulletin sett: a command mistyped, not an argument too many
		}
		if len(args) < min || (max >= 0 && len(args) > max) {
			return usageError("%s takes %s: %s (see --help)", cmd.CommandPath(), describeArgs(min, max), usageOf(cmd))
		}
		for i, a := range args {
			if strings.TrimSpace(a) == "" {
				return usageError("%s: argument %d is empty: %s", cmd.CommandPath(), i+1, usageOf(cmd))
			}
		}
		return nil
	}
}

// usageOf is the command's line of use, as its help gives it.
func usageOf(cmd *cobra.Command) string {
	return strings.TrimSuffix(cmd.UseLine(), " [flags]")
}

func describeArgs(min, max int) string {
	switch {
	case min == max && min == 0:
		return "no arguments"
	case min == max && min == 1:
		return "one argument"
	case min == max:
		return fmt.Sprintf("%d arguments", min)
	case max < 0:
		return fmt.Sprintf("at least %d arguments", min)
	default:
		return fmt.Sprintf("%d to %d arguments", min, max)
	}
}
