package linkcmd

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"switchboard/internal/program"
)

// Main runs switchboard-link with args (the program's name left out) and
// returns its exit code; its master stops on SIGINT or SIGTERM.
func Main(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return program.Run(ctx, newLinkCmd(ctx, stdout, stderr), "", args, stdout, stderr)
}

func newLinkCmd(ctx context.Context, stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "switchboard-link",
		Short: "Run the master of a host of a team across machines, with its link to the hub",
		Long: `switchboard-link runs the master of a host of a team across machines, with
its link to the hub, and checks a host's credentials. It is not run by hand:
switchboard master (and switchboard up, which starts it) and switchboard
doctor run it.`,
		Args: program.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return program.Usage("it runs the master of a host of a team across machines: run switchboard master, or switchboard up, which run it")
		},
	}
	cmd.AddCommand(newMasterCmd(ctx, stderr), newCheckCmd(ctx, stdout))
	program.WithVersion(cmd, "switchboard-link", stdout)
	return cmd
}
