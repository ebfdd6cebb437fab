package main

import (
	"fmt"
	"io"

	"switchboard/bench"
)

// printMemoryTable writes the master's resident memory at each fifth of
// the memory run, beside the baseline binary's when there is one.
func printMemoryTable(w io.Writer, r *bench.Result) error {
	m := r.Memory
	t := &benchTable{rightAligned: []bool{false, true, true, false, false}}
	t.add(fmt.Sprintf("a master (no fsync) of %d agents, %d messages of %d bytes, each read as it arrives", m.Agents, m.Messages, m.Body), "baseline", "switchboard", "target", "")
	mib := func(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
	baseline := func(i int) string {
		if m.Baseline == nil || i >= len(m.Baseline.Samples) {
			return ""
		}
		return mib(m.Baseline.Samples[i].RSS)
	}
	for i, s := range m.Master.Samples {
		t.add(fmt.Sprintf("resident after %d routed (%d %%)", s.Routed, 100*s.Routed/m.Messages), baseline(i), mib(s.RSS), "", "")
	}
	growth := ""
	if m.Baseline != nil {
		growth = mib(m.Baseline.Growth())
	}
	t.addChecked(r, bench.RowMemoryGrowth, "grown since the first fifth", growth, mib(m.Master.Growth()))
	return t.write(w)
}
