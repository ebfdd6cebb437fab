package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"switchboard/bulletin"
	"switchboard/desk"
	"switchboard/internal/safetext"
)

func newLockCmd(io *streams, g *globals) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "lock RESOURCE [--reason R]",
		Short: "Take a shared resource; exit 3 when someone else holds it",
		Long: `Take a shared resource (any name: a file, a database, "main"), recorded in the
bulletin for everyone to see. Taking one you hold renews it. When another agent
holds it, lock exits 3 and says who, since when and why.`,
		Example: `  switchboard lock staging-db --reason "running migrations"
  switchboard lock main || echo "someone else is merging"`,
		Args: args(1, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			ws, err := openWorkspace(g)
			if err != nil {
				return err
			}
			err = ws.desk().Lock(a[0], reason)
			if errors.Is(err, bulletin.ErrHeld) {
				return refusedError(err)
			}
			if errors.Is(err, desk.ErrBadReason) {
				return usageError("%v", err)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(io.out, "%s locked by %s\n", safetext.Line(a[0]), ws.agent)
			return nil
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why, for the others to see")
	return cmd
}

func newUnlockCmd(io *streams, g *globals) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "unlock RESOURCE [--force]",
		Short: "Release a shared resource you hold",
		Long: `Release a shared resource. Only its holder may; exit 3 otherwise. The operator
may --force the lock of an agent that has exited (its lock shows as stale).`,
		Example: `  switchboard unlock staging-db
  switchboard unlock main --force        # as the operator, for an agent that exited`,
		Args: args(1, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			ws, err := openWorkspace(g)
			if err != nil {
				return err
			}
			released, err := ws.desk().Unlock(a[0], force)
			if errors.Is(err, bulletin.ErrNotHolder) || errors.Is(err, desk.ErrNoRight) {
				return refusedError(err)
			}
			if err != nil {
				return err
			}
			// A lock forced open may be of any holder the bulletin names.
			fmt.Fprintf(io.out, "%s unlocked (held by %s)\n", safetext.Line(a[0]), safetext.Line(released.Holder))
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "as the operator, release the stale lock of an agent that exited")
	return cmd
}
