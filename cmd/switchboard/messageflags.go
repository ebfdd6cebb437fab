package main

import (
	"github.com/spf13/pflag"

	"switchboard/desk"
)

// The flags of a message's fields take their names, help and defaults from
// desk, which declares them for the MCP tools' inputs too; what is the
// command line's own, lists and standard input, is said here.

func stringFlag(f *pflag.FlagSet, p *string, field desk.Field) {
	f.StringVar(p, field.Flag(), field.Default, field.Help)
}

// bodyFlag is a message's content, which "-" reads from standard input.
func bodyFlag(f *pflag.FlagSet, p *string, field desk.Field) {
	f.StringVar(p, field.Flag(), field.Default, field.Help+`; "-" reads standard input`)
}

func listFlag(f *pflag.FlagSet, p *[]string, field desk.Field) {
	f.StringSliceVar(p, field.Flag(), nil, field.Help+" (comma-separated)")
}

func boolFlag(f *pflag.FlagSet, p *bool, field desk.Field) {
	f.BoolVar(p, field.Flag(), false, field.Help)
}
