package program

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"switchboard/internal/release"
)

// Run runs the tree of commands root with args, and returns the exit code:
// a flag it does not know, or a word where none is taken, is a mistake in
// the command line; any other error is the command's, printed as
// "<shownAs> <command>: <error>" on stderr (unless ErrSaid) and ended with
// the code it carries, or ExitError. shownAs is how the user calls the
// program, like "switchboard" for switchboard-hub, which they run as
// switchboard hub.
func Run(ctx context.Context, root *cobra.Command, shownAs string, args []string, stdout, stderr io.Writer) int {
	root.SilenceErrors, root.SilenceUsage = true, true
	root.CompletionOptions.DisableDefaultCmd = true
	ShownAs(root, shownAs)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetArgs(args)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return Usage("%v; %s --help says how", err, called(shownAs, cmd))
	})
	template := strings.NewReplacer("{{.UseLine}}", shownAs+" {{.UseLine}}", "{{.CommandPath}}", shownAs+" {{.CommandPath}}").Replace(root.UsageTemplate())
	root.SetUsageTemplate(template)
	ran, err := root.ExecuteContextC(ctx)
	if err != nil && !errors.Is(err, ErrSaid) {
		fmt.Fprintf(stderr, "%s: %v\n", called(shownAs, ran), err)
	}
	code, _ := CodeOf(err)
	return code
}

// shownAsKey keeps, among the root command's annotations, how the user
// calls the program.
const shownAsKey = "shown-as"

// ShownAs names cmd in its errors as the user knows it, when that is not
// its own path: the master that switchboard master runs as
// switchboard-link master, say.
func ShownAs(cmd *cobra.Command, name string) {
	if cmd.Annotations == nil {
		cmd.Annotations = make(map[string]string)
	}
	cmd.Annotations[shownAsKey] = name
}

// called is a command as the user calls it.
func called(shownAs string, cmd *cobra.Command) string {
	if cmd == nil {
		return shownAs
	}
	if name, ok := cmd.Annotations[shownAsKey]; ok && cmd.HasParent() {
		return name
	}
	return strings.TrimSpace(shownAs + " " + cmd.CommandPath())
}

// NoArgs refuses any word where a command takes only flags.
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return Usage("it takes no arguments, only flags (got %q); %s --help says how", args, called(cmd.Root().Annotations[shownAsKey], cmd))
	}
	return nil
}

// WithVersion gives root a --version flag and a version command, each
// printing the one line of the release and build of the program name.
func WithVersion(root *cobra.Command, name string, stdout io.Writer) {
	line := release.Line(name)
	root.Version = line
	root.SetVersionTemplate("{{.Version}}\n")
	root.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "Print the release and build of " + name + ", and stop",
		Args:  NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintln(stdout, line)
			return err
		},
	})
}
