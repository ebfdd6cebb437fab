package bench

import (
	"context"
	"testing"
	"time"
)

// TestRunHubScale runs the scale run small: two hosts of three agents
// through one hub, each figure there and the rows checked.
func TestRunHubScale(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := RunHubScale(ctx, HubScaleConfig{Binary: switchboardBinary(t), Hosts: 2, Agents: 3, Rest: time.Second,
		Rate: 20, Steady: time.Second, Burst: 20, Volume: 40, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Steady.Count != 20 || res.Steady.Lost != 0 || res.SteadyLocal.Lost != 0 || res.Burst.Lost != 0 {
		t.Errorf("messages lost: steady %+v, local %+v, burst %+v", res.Steady, res.SteadyLocal, res.Burst)
	}
	if res.Presence <= 0 || res.Disk <= 0 || res.Rest.Total() <= 0 && res.Load.Total() <= 0 || res.RestLocal.RSS <= 0 {
		t.Errorf("figures missing: %+v", res)
	}
	var r Result
	r.AddHubScale(res)
	if len(r.Checks) != 5 {
		t.Errorf("checks %+v, want the five rows of one hub (at rest, p50, the hub's load, states, lost)", r.Checks)
	}
}
