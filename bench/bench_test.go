package bench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tiny is small enough to run in a second against the floor alone.
func tiny(t *testing.T) Config {
	cfg := Config{Agents: 3, Rate: 200, Duration: 250 * time.Millisecond, Burst: 100, Idle: -1, Patience: 5 * time.Second}
	if testing.Verbose() {
		cfg.Progress = testWriter{t}
	}
	return cfg
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func TestFloorSeesEveryMessage(t *testing.T) {
	res, err := Run(context.Background(), tiny(t))
	if err != nil {
		t.Fatal(err)
	}
	if res.Master != nil || res.IdleCPU != nil || len(res.Checks) != 0 {
		t.Errorf("no binary was given, yet the master was measured: %+v", res)
	}
	for name, v := range map[string]Variant{"durable": res.Floor.Durable, "no fsync": res.Floor.NoFsync} {
		if s := v.Steady; s.Count != 50 || s.Lost != 0 {
			t.Errorf("%s steady: %d of %d messages lost, want 50 posted and none lost", name, s.Lost, s.Count)
		}
		if s := v.Steady; s.P50 <= 0 || s.P50 > s.P99 || s.P99 > s.Max {
			t.Errorf("%s steady: p50 %s, p99 %s, max %s are not ordered", name, s.P50, s.P99, s.Max)
		}
		if b := v.Burst; b.Count != 100 || b.Lost != 0 || b.PerSecond <= 0 || b.Elapsed < b.Posting/2 {
			t.Errorf("%s burst: %+v, want 100 posted, none lost, a rate", name, b)
		}
	}
}

func TestRunRemovesItsWorkspaces(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	if _, err := Run(context.Background(), tiny(t)); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(tmp, "*"))
	if len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestRunStopsWhenCancelled(t *testing.T) {
	cfg := tiny(t)
	cfg.Duration = time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := Run(ctx, cfg); err == nil {
		t.Fatal("a cancelled run returned no error")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("a cancelled run took %s to return", took)
	}
}

func TestMasterThatCannotStart(t *testing.T) {
	cfg := tiny(t)
	cfg.Binary = filepath.Join(t.TempDir(), "no-such-switchboard")
	_, err := Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "start master") {
		t.Errorf("got %v, want an error starting the master", err)
	}
}

func TestConfigChecks(t *testing.T) {
	for _, cfg := range []Config{{Agents: 1}, {Rate: -1}, {Burst: -5}, {Agents: 1000}} {
		if _, err := Run(context.Background(), cfg); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i))
	}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{0.50, 50}, {0.99, 99}, {1, 100}, {0, 1}} {
		if got := percentile(d, c.p); got != c.want {
			t.Errorf("p%.0f of 1..100 = %d, want %d", c.p*100, got, c.want)
		}
	}
}

func TestProcessCPUTime(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here")
	}
	if _, err := processCPUTime(os.Getpid()); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkFloorRelay is the floor's burst without fsync, as messages per
// second, for `go test -bench`.
func BenchmarkFloorRelay(b *testing.B) {
	ws, err := newTestbed("", 4)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.remove()
	watch, err := watchInboxes(ws, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer watch.close()
	floor, err := startFloor(ws, false)
	if err != nil {
		b.Fatal(err)
	}
	defer floor.stop()
	s := newSender(ws, watch)
	batch := watch.newBatch(b.N)
	b.ResetTimer()
	for i := range b.N {
		if err := s.post(batch, ws.agents[i%len(ws.agents)]); err != nil {
			b.Fatal(err)
		}
	}
	if err := watch.wait(context.Background(), batch, 5*time.Second); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if out := watch.settle(batch); out.lost > 0 {
		b.Fatalf("%d of %d lost", out.lost, b.N)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msg/s")
}
