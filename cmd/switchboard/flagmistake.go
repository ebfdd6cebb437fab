package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"switchboard/internal/spelling"
)

// flagMistake is the usage error of a flag the command line got wrong. A
// long flag the command does not know is given the nearest one it does,
// as a mistyped command is: cobra suggests commands, never flags.
func flagMistake(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if typo, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		if near, ok := spelling.Nearest(typo, flagNames(cmd)); ok {
			return usageError("%s (did you mean --%s?)", msg, near)
		}
	}
	return usageError("%s (see --help)", msg)
}

// flagNames are the long flags cmd takes, its parents' included, but not
// those hidden from its help.
func flagNames(cmd *cobra.Command) []string {
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	return names
}
