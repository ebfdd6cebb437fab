package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"switchboard/internal/release"
)

// newVersionCmd is `switchboard version`, what people type before they find
// --version; hidden, as --version is the documented way.
func newVersionCmd(io *streams) *cobra.Command {
	return &cobra.Command{
		Use:    "version",
		Short:  "Print the version (as --version does)",
		Hidden: true,
		Args:   args(0, 0),
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintln(io.out, release.Line("switchboard"))
			return nil
		},
	}
}

// version is the release and build of this program, as --version shows
// them after its name: "0.9.0 (commit 24bab75, 2026-11-28)".
func version() string { return release.Read().String() }
