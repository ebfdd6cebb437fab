package main

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"switchboard/bulletin"
	"switchboard/desk"
	"switchboard/hooks"
	"switchboard/internal/safetext"
)

func newBulletinCmd(io *streams, g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bulletin",
		Short: "Read or change the team's bulletin: status, phase, warnings",
		Long: `The bulletin is the team's shared status, shown to every agent before each
prompt: the system status and current phase (set by oversight agents and the
operator), warnings, locked resources, and each agent's state and mail.`,
		Example: `  switchboard bulletin
  switchboard bulletin set phase "integration testing" --as master_agent
  switchboard bulletin warn "main is red: do not merge" --as master_agent
  switchboard bulletin clear-warnings --as master_agent`,
		Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error { return runBulletinShow(io, g) },
	}
	show := &cobra.Command{
		Use: "show", Short: "Print the bulletin", Args: args(0, 0),
		Example: "  switchboard bulletin show --json",
		RunE:    func(cmd *cobra.Command, _ []string) error { return runBulletinShow(io, g) },
	}
	set := &cobra.Command{
		Use:   "set status|phase VALUE",
		Short: "Set the system status or the current phase (oversight agents and the operator)",
		Long: `Set the system status (` + strings.Join(bulletin.Statuses, ", ") + `) or the current phase (any
text) that every agent sees before each prompt. Oversight agents and the
operator may.`,
		Example: "  switchboard bulletin set status degraded --as master_agent",
		Args:    args(2, 2),
		ValidArgsFunction: func(_ *cobra.Command, a []string, _ string) ([]string, cobra.ShellCompDirective) {
			switch {
			case len(a) == 0:
				return []string{"status", "phase"}, cobra.ShellCompDirectiveNoFileComp
			case len(a) == 1 && a[0] == "status":
				return bulletin.Statuses, cobra.ShellCompDirectiveNoFileComp
			}
			return nil, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, a []string) error {
			field, value := a[0], strings.TrimSpace(a[1])
			if field != "status" && field != "phase" {
				return usageError("bulletin set takes status or phase, not %q", field)
			}
			if field == "status" {
				return changeBulletin(io, g, desk.BulletinChange{Status: value})
			}
			return changeBulletin(io, g, desk.BulletinChange{Phase: value})
		},
	}
	warn := &cobra.Command{
		Use:     "warn TEXT",
		Short:   "Add a warning every agent sees (oversight agents and the operator)",
		Example: `  switchboard bulletin warn "the staging database is down" --as master_agent`,
		Args:    args(1, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			return changeBulletin(io, g, desk.BulletinChange{Warn: a[0]})
		},
	}
	clearWarnings := &cobra.Command{
		Use:     "clear-warnings",
		Short:   "Remove every warning (oversight agents and the operator)",
		Example: "  switchboard bulletin clear-warnings --as master_agent",
		Args:    args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return changeBulletin(io, g, desk.BulletinChange{ClearWarnings: true})
		},
	}
	cmd.AddCommand(show, set, warn, clearWarnings)
	return cmd
}

func runBulletinShow(io *streams, g *globals) error {
	ws, rulesErr, err := openReading(g)
	if err != nil {
		return err
	}
	warnBrokenRules(io, ws, rulesErr)
	b, err := bulletin.Of(ws.folder).Read()
	if err != nil {
		return err
	}
	if g.json {
		return writeJSON(io.out, b)
	}
	st, err := desk.ReadStatus(ws.folder, ws.agent)
	if err != nil {
		return err
	}
	fmt.Fprint(io.out, hooks.StatusBox(st, hooks.UTF8Terminal()))
	// Any agent may write the bulletin: its names are printed escaped.
	for _, name := range slices.Sorted(maps.Keys(b.Agents)) {
		a := b.Agents[name]
		fmt.Fprintf(io.out, "%-20s %-12s %d new", safetext.Line(name), safetext.Line(a.State), a.Unread)
		if a.Urgent > 0 {
			fmt.Fprintf(io.out, " (%d urgent)", a.Urgent)
		}
		fmt.Fprintln(io.out)
	}
	if state, err := bulletin.Of(ws.folder).ReadState(); err == nil && len(state) > 0 {
		keys := slices.Sorted(maps.Keys(state))
		for i, k := range keys {
			keys[i] = safetext.Line(k)
		}
		fmt.Fprintf(io.out, "shared state: %s\n", strings.Join(keys, ", "))
	}
	return nil
}

// changeBulletin applies an overseer's change and prints what it did.
func changeBulletin(io *streams, g *globals, c desk.BulletinChange) error {
	ws, err := openWorkspace(g)
	if err != nil {
		return err
	}
	said, err := ws.desk().ChangeBulletin(c)
	switch {
	case errors.Is(err, desk.ErrNoRight):
		return refusedError(err)
	case errors.Is(err, bulletin.ErrStatus):
		return usageError("%w", err)
	case err != nil:
		return err
	}
	fmt.Fprintln(io.out, said)
	return nil
}
