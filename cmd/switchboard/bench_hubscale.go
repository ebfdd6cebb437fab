package main

import (
	"fmt"
	"io"
	"time"

	"switchboard/bench"
)

// printHubScaleTable writes each scale run: across hosts beside the same
// within one host, at rest, the states, and the hub's disk.
func printHubScaleTable(w io.Writer, r *bench.Result) error {
	for i, h := range r.HubScale {
		if i > 0 {
			fmt.Fprintln(w)
		}
		what, how := "one hub", ""
		if h.Cluster {
			what, how = "three hubs", " (a cluster, three replicas)"
		}
		checked := func(row string) string { return fmt.Sprintf("%s (%s)", row, what) }
		t := &benchTable{rightAligned: []bool{false, true, true, false, false}}
		t.add(fmt.Sprintf("%d hosts of %d agents, masters as processes, through %s%s", h.Hosts, h.Agents, what, how), "one host", "across hosts", "target", "")
		row := func(checkRow, name, local, across string) { t.addChecked(r, checkRow, name, local, across) }
		pct := func(p float64) string { return fmt.Sprintf("%.2f %%", p) }
		mib := func(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
		row(checked(bench.RowScaleJoined), "from the hub's start: every host joined, seeing the whole team", "", fmt.Sprintf("%.1f s", h.Joined.Seconds()))
		row(checked(bench.RowScaleRest), fmt.Sprintf("at rest over %s: hub and masters together, share of a core", h.RestFor.Round(time.Second)), pct(h.RestLocal.Total()), pct(h.Rest.Total()))
		row("", "  the hub / the masters summed", "", pct(h.Rest.Hub)+" / "+pct(h.Rest.Masters))
		row("", "  resident: the hub / the largest master", mib(h.RestLocal.RSS), mib(h.Rest.HubRSS)+" / "+mib(h.Rest.RSS))
		row(checked(bench.RowScalePresence), "an agent's state, until every host shows it", "", fmt.Sprintf("%.1f s", h.Presence.Seconds()))
		row(checked(bench.RowScaleP50), fmt.Sprintf("steady %d msg/s: p50", h.Rate), benchMillis(h.SteadyLocal.P50)+" ms", benchMillis(h.Steady.P50)+" ms")
		row("", "  p99", benchMillis(h.SteadyLocal.P99)+" ms", benchMillis(h.Steady.P99)+" ms")
		row(checked(bench.RowScaleLoad), "  meanwhile, the hub / the masters summed", "", pct(h.Load.Hub)+" / "+pct(h.Load.Masters))
		row("", "  resident: the hub / the largest master", "", mib(h.Load.HubRSS)+" / "+mib(h.Load.RSS))
		row("", fmt.Sprintf("a burst of %d", h.Burst.Count), "", fmt.Sprintf("%.0f msg/s", h.Burst.PerSecond))
		row("", fmt.Sprintf("the hub's disk after %d messages", h.Volume), "", mib(h.Disk))
		row(checked(bench.RowScaleLost), "lost", fmt.Sprint(h.SteadyLocal.Lost), fmt.Sprint(h.Lost()))
		if err := t.write(w); err != nil {
			return err
		}
	}
	return nil
}
