package linkcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"switchboard/hub"
	"switchboard/internal/program"
	"switchboard/master"
	"switchboard/master/hublink"
	"switchboard/workspace"
)

// newMasterCmd runs the master of the workspace at --root with a link to
// the hub its settings name, until ctx ends.
func newMasterCmd(ctx context.Context, stderr io.Writer) *cobra.Command {
	var root string
	cmd := &cobra.Command{
		Use:   "master --root DIR",
		Short: "Run the master of the workspace at --root, joined to its hub (switchboard master runs it)",
		Args:  program.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if root == "" {
				return errRunMaster
			}
			return runMaster(ctx, root, stderr)
		},
	}
	cmd.Flags().StringVar(&root, "root", "", "the workspace")
	program.ShownAs(cmd, "switchboard master")
	return cmd
}

// errRunMaster is switchboard-link master run by hand.
var errRunMaster = program.Usage("run switchboard master, which runs this with the workspace's root and options")

func runMaster(ctx context.Context, root string, stderr io.Writer) error {
	opts, err := master.TakeOver() // not the agents' business: out of the environment
	switch {
	case errors.Is(err, master.ErrNoOptions):
		return errRunMaster
	case err != nil:
		return program.Usage("%w: are switchboard and switchboard-link of the same build? go install ./cmd/... installs them together", err)
	}
	ws := workspace.New(root)
	settings, joined, err := ws.Hub()
	if err == nil && !joined {
		err = errors.New("this workspace joins no hub: run switchboard master")
	}
	if err != nil {
		return err
	}
	opts.Log, opts.Link = stderr, hublink.New(settings)
	return master.New(root, opts).Run(ctx)
}

// newCheckCmd says whether the hub takes the credentials of the workspace
// at --root: doctor asks, and shows what it prints.
func newCheckCmd(ctx context.Context, stdout io.Writer) *cobra.Command {
	var root string
	cmd := &cobra.Command{
		Use:   "check --root DIR",
		Short: "Say whether the hub takes this host's credentials (switchboard doctor runs it)",
		Args:  program.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if root == "" {
				return program.Usage("run switchboard doctor, which runs this with the workspace's root")
			}
			return check(ctx, root, stdout)
		},
	}
	cmd.Flags().StringVar(&root, "root", "", "the workspace")
	return cmd
}

func check(ctx context.Context, root string, stdout io.Writer) error {
	ws := workspace.New(root)
	s, joined, err := ws.Hub()
	if err == nil && !joined {
		err = errors.New("this workspace joins no hub")
	}
	if err == nil {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		var c *hub.Conn
		if c, err = hub.Dial(ctx, s.URL, hub.JoinConfig{Team: s.Team, Host: s.Host, RootCAs: s.CA, Credentials: []byte(s.Credentials)}); err == nil {
			c.Close()
		}
	}
	if err != nil {
		fmt.Fprintln(stdout, err)
		return program.Exit(program.ExitError)
	}
	fmt.Fprintf(stdout, "host %s reaches the hub\n", s.Host)
	return nil
}
