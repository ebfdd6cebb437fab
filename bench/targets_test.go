package bench

import "testing"

// TestTheDurableBurstIsHeldToFourFifthsOfTheFloor: the durable burst row
// passes at 0.8 of the durable floor's rate in the same run and misses
// below it, or with a message lost; the burst without fsync keeps its own
// target.
func TestTheDurableBurstIsHeldToFourFifthsOfTheFloor(t *testing.T) {
	for _, c := range []struct {
		master, floor float64
		lost          int
		pass          bool
	}{
		{master: 800, floor: 1000, pass: true},
		{master: 1500, floor: 1000, pass: true},
		{master: 790, floor: 1000, pass: false},
		{master: 900, floor: 1000, lost: 1, pass: false},
		{master: 900, floor: 0, pass: false},
	} {
		r := &Result{Master: &Router{}}
		r.Floor.Durable.Burst = Throughput{Count: 2000, PerSecond: c.floor}
		r.Master.Durable.Burst = Throughput{Count: 2000, Lost: c.lost, PerSecond: c.master}
		r.Floor.NoFsync.Burst = Throughput{Count: 2000, PerSecond: 1000}
		r.Master.NoFsync.Burst = Throughput{Count: 2000, PerSecond: 750}
		r.check()
		got, ok := r.Check(RowBurstDurable)
		if !ok || got.Pass != c.pass {
			t.Errorf("durable burst of %.0f msg/s (%d lost) beside the floor's %.0f: %+v; want pass %v", c.master, c.lost, c.floor, got, c.pass)
		}
		if got.Target != "≥ 0.8× floor (800 msg/s)" && c.floor == 1000 {
			t.Errorf("the durable burst's target reads %q", got.Target)
		}
		if nf, _ := r.Check(RowBurstNoFsync); !nf.Pass {
			t.Errorf("a burst without fsync at 0.75 of its floor: %+v; want it to pass its own target of %g", nf, TargetBurstRatio)
		}
	}
}
