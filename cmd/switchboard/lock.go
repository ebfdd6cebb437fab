package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"switchboard/bulletin"
	"switchboard/mailbox"
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
			err = ws.folder.Bulletin().Acquire(a[0], ws.agent, reason)
			if errors.Is(err, bulletin.ErrHeld) {
				return refusedError(err)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(io.out, "%s locked by %s\n", a[0], ws.agent)
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
			store := ws.folder.Bulletin()
			if force {
				if ws.agent != mailbox.Operator {
					return refusedError(errors.New("only the operator may --force a lock"))
				}
				b, err := store.Read()
				if err != nil {
					return err
				}
				if l, ok := b.SharedResources[a[0]]; ok && !lockIsStale(ws, l) {
					return refusedError(fmt.Errorf("%s is held by %s, which has not exited; ask it to unlock, or stop it first", a[0], l.Holder))
				}
			}
			released, err := store.Release(a[0], ws.agent, force)
			if errors.Is(err, bulletin.ErrNotHolder) {
				return refusedError(err)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(io.out, "%s unlocked (held by %s)\n", a[0], released.Holder)
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "as the operator, release the stale lock of an agent that exited")
	return cmd
}

// lockIsStale reports whether a lock's holder has exited.
func lockIsStale(ws *caller, l bulletin.Lock) bool {
	st, ok, _ := ws.store.ReadState(l.Holder)
	return ok && st.State == mailbox.StateExited
}
