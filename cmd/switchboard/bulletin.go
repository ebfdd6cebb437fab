package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"switchboard/bulletin"
	"switchboard/hooks"
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
		RunE: func(cmd *cobra.Command, a []string) error {
			field, value := a[0], strings.TrimSpace(a[1])
			if field != "status" && field != "phase" {
				return usageError("bulletin set takes status or phase, not %q", field)
			}
			if field == "status" {
				if err := bulletin.CheckStatus(value); err != nil {
					return usageError("%w", err)
				}
			}
			return changeBulletin(io, g, func(b *bulletin.Bulletin, _ string) string {
				if field == "status" {
					b.SystemStatus = value
				} else {
					b.CurrentPhase = value
				}
				return fmt.Sprintf("%s set to %q", field, value)
			})
		},
	}
	warn := &cobra.Command{
		Use:     "warn TEXT",
		Short:   "Add a warning every agent sees (oversight agents and the operator)",
		Example: `  switchboard bulletin warn "the staging database is down" --as master_agent`,
		Args:    args(1, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			return changeBulletin(io, g, func(b *bulletin.Bulletin, agent string) string {
				b.Warnings = append(b.Warnings, bulletin.Warning{Text: a[0], From: agent, At: time.Now().UTC()})
				return fmt.Sprintf("warning added (%d in all)", len(b.Warnings))
			})
		},
	}
	clearWarnings := &cobra.Command{
		Use:     "clear-warnings",
		Short:   "Remove every warning (oversight agents and the operator)",
		Example: "  switchboard bulletin clear-warnings --as master_agent",
		Args:    args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return changeBulletin(io, g, func(b *bulletin.Bulletin, _ string) string {
				n := len(b.Warnings)
				b.Warnings = nil
				return fmt.Sprintf("%d %s cleared", n, plural(n, "warning", "warnings"))
			})
		},
	}
	cmd.AddCommand(show, set, warn, clearWarnings)
	return cmd
}

func runBulletinShow(io *streams, g *globals) error {
	ws, err := openWorkspace(g)
	if err != nil {
		return err
	}
	b, err := ws.folder.Bulletin().Read()
	if err != nil {
		return err
	}
	if g.json {
		return writeJSON(io.out, b)
	}
	st, err := hooks.ReadStatus(ws.folder, ws.agent)
	if err != nil {
		return err
	}
	fmt.Fprint(io.out, st.Box(hooks.UTF8Terminal()))
	for _, name := range slices.Sorted(maps.Keys(b.Agents)) {
		a := b.Agents[name]
		fmt.Fprintf(io.out, "%-20s %-12s %d new", name, a.State, a.Unread)
		if a.Urgent > 0 {
			fmt.Fprintf(io.out, " (%d urgent)", a.Urgent)
		}
		fmt.Fprintln(io.out)
	}
	if len(b.SharedState) > 0 {
		fmt.Fprintf(io.out, "shared state: %s\n", strings.Join(slices.Sorted(maps.Keys(b.SharedState)), ", "))
	}
	return nil
}

// changeBulletin applies an overseer's change and prints what it did.
func changeBulletin(io *streams, g *globals, change func(b *bulletin.Bulletin, agent string) string) error {
	ws, err := openWorkspace(g)
	if err != nil {
		return err
	}
	if !ws.rules.MayChangeBulletin(ws.agent) {
		return refusedError(fmt.Errorf("%s may not change the bulletin's status, phase or warnings: only oversight agents (%s) and the operator may", ws.agent, overseers(ws)))
	}
	var said string
	err = ws.folder.Bulletin().Update(func(b *bulletin.Bulletin) error {
		said = change(b, ws.agent)
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(io.out, said)
	return nil
}
