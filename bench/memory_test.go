package bench

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

func TestRunMemory(t *testing.T) {
	bin := switchboardBinary(t)
	dir := t.TempDir()
	cfg := MemoryConfig{Binary: bin, Baseline: bin, Messages: 300, Agents: 3, Body: 100, Settle: 10 * time.Millisecond, Dir: dir}
	if testing.Verbose() {
		cfg.Progress = testWriter{t}
	}
	res, err := RunMemory(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Baseline == nil {
		t.Fatal("a baseline binary was given, and no baseline was measured")
	}
	for name, run := range map[string]MemoryRun{"master": res.Master, "baseline": *res.Baseline} {
		if len(run.Samples) != memorySamples {
			t.Fatalf("%s: %d samples %+v; want one at each fifth of the run", name, len(run.Samples), run.Samples)
		}
		for i, s := range run.Samples {
			if want := (i + 1) * 60; s.Routed != want || s.RSS < 1<<20 {
				t.Errorf("%s: sample %d is %d bytes resident after %d routed; want a master's memory after %d", name, i, s.RSS, s.Routed, want)
			}
		}
		if run.Elapsed <= 0 {
			t.Errorf("%s: elapsed %s", name, run.Elapsed)
		}
	}
	r := &Result{}
	r.AddMemory(res)
	if c, ok := r.Check(RowMemoryGrowth); !ok || c.Pass != (res.Master.Growth() <= TargetMemoryGrowth) {
		t.Errorf("check of the memory row: %+v, %v; want one, passed when it grew by at most %d bytes (it grew by %d)", c, ok, TargetMemoryGrowth, res.Master.Growth())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestRunMemoryOfAMasterThatCannotStart(t *testing.T) {
	dir := t.TempDir()
	_, err := RunMemory(context.Background(), MemoryConfig{Binary: filepath.Join(dir, "no-such-switchboard"), Messages: 10, Dir: dir})
	if err == nil {
		t.Fatal("no error from a master that cannot start")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "switchboard-bench-*")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}
