package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"switchboard/bench"
)

// TestBenchMeasuresATeamOfManyHostsThroughItsHub runs the scale part of
// bench small, as a person would: two hosts of three agents through one
// hub. Every message arrived, each figure is there with its target, and
// the table names them. (Its figures are not checked: a second of a busy
// test machine says nothing.)
func TestBenchMeasuresATeamOfManyHostsThroughItsHub(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a hub and two masters; skipped with -short")
	}
	t.Parallel()
	res := benchJSON(t, "--only", "hub-scale", "--scale-hosts", "2", "--scale-agents", "3",
		"--scale-rest", "1s", "--scale-steady", "1s", "--scale-burst", "20", "--scale-volume", "40", "--scale-hubs", "one")
	if len(res.HubScale) != 1 {
		t.Fatalf("want the run through one hub, got %d runs", len(res.HubScale))
	}
	h := res.HubScale[0]
	if h.Cluster || h.Hosts != 2 || h.Agents != 3 || h.Steady.Count == 0 || h.SteadyLocal.Count == 0 {
		t.Fatalf("scale figures: %+v", h)
	}
	if lost := h.Steady.Lost + h.SteadyLocal.Lost + h.Burst.Lost + h.VolumeLost; lost > 0 {
		t.Errorf("%d messages lost: %+v", lost, h)
	}
	if h.Disk <= 0 || h.Presence <= 0 {
		t.Errorf("no disk or presence figure: %+v", h)
	}
	var table bytes.Buffer
	if err := printHubScaleTable(&table, &res); err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{bench.RowScaleRest, bench.RowScaleP50, bench.RowScaleLoad, bench.RowScalePresence, bench.RowScaleLost} {
		c, ok := res.Check(row + " (one hub)")
		if !ok {
			t.Errorf("no check of %s: %+v", row, res.Checks)
			continue
		}
		if !strings.Contains(table.String(), c.Target) {
			t.Errorf("the table does not show the target of %s (%s):\n%s", row, c.Target, table.String())
		}
	}
	for _, want := range []string{"2 hosts of 3 agents", "steady 100 msg/s: p50", "the hub's disk after 40 messages"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("the table does not say %q:\n%s", want, table.String())
		}
	}

	// A number out of range says which flag, and runs nothing.
	said, err := exec.Command("switchboard", "bench", "--only", "hub-scale", "--scale-hubs", "two").CombinedOutput()
	if err == nil || !strings.Contains(string(said), "--scale-hubs is one, three or both") {
		t.Errorf("bench --scale-hubs two: %v\n%s", err, said)
	}
}
