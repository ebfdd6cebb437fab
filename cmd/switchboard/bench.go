package main

import (
	"github.com/spf13/cobra"
)

func newBenchCmd(io *streams, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:    "bench",
		Short:  "Measure routing latency and throughput on this machine",
		Args:   args(0, 0),
		Hidden: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usageError("bench is not built yet")
		},
	}
}
