package bench

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// switchboardBinary builds the command once for all the tests of the
// process; TestMain removes it.
func switchboardBinary(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build switchboard with")
	}
	buildOnce.Do(func() {
		var dir string
		if dir, buildErr = os.MkdirTemp("", "switchboard-bench-test-"); buildErr != nil {
			return
		}
		builtBin = filepath.Join(dir, "switchboard")
		// switchboard-hub and switchboard-link beside it, as go install
		// ./cmd/... puts them: the hub, and the masters of a team across
		// machines, run in them.
		for _, build := range [][]string{{builtBin, "switchboard/cmd/switchboard"},
			{filepath.Join(dir, "switchboard-hub"), "switchboard/cmd/switchboard-hub"},
			{filepath.Join(dir, "switchboard-link"), "switchboard/cmd/switchboard-link"}} {
			out, err := exec.Command(goTool, "build", "-o", build[0], build[1]).CombinedOutput()
			if err != nil {
				buildErr = errors.New("go build: " + err.Error() + "\n" + string(out))
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtBin != "" {
		os.RemoveAll(filepath.Dir(builtBin))
	}
	os.Exit(code)
}

func TestRunHooks(t *testing.T) {
	cfg := HookConfig{Binary: switchboardBinary(t), Unread: 200, Runs: 3, Dir: t.TempDir()}
	if testing.Verbose() {
		cfg.Progress = testWriter{t}
	}
	h, err := RunHooks(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if h.Unread != 200 || h.Urgent != 10 || h.Runs != 3 {
		t.Errorf("unread %d (%d urgent), %d runs; want 200 (10 urgent), 3 runs", h.Unread, h.Urgent, h.Runs)
	}
	for name, tm := range map[string]Timing{"true": h.True, "nothing to do": h.NothingToDo, "status": h.StatusLine, "prompt, new": h.PromptNew, "prompt, shown": h.PromptShown} {
		if tm.P50 <= 0 || tm.P50 > tm.P90 || tm.P90 > tm.Max {
			t.Errorf("%s: median %s, p90 %s, max %s are not ordered and positive", name, tm.P50, tm.P90, tm.Max)
		}
		if tm.OverTrue != tm.P50-h.True.P50 {
			t.Errorf("%s: %s over /bin/true, want %s", name, tm.OverTrue, tm.P50-h.True.P50)
		}
		if tm.Command == "" || strings.Contains(tm.Command, cfg.Dir) {
			t.Errorf("%s: command %q: want it named, without the workspace's folder", name, tm.Command)
		}
	}
	if !strings.Contains(h.StatusOutput, "200 new (10 urgent)") {
		t.Errorf("status printed %q, want 200 new (10 urgent)", h.StatusOutput)
	}
	left, _ := filepath.Glob(filepath.Join(cfg.Dir, "*"))
	if len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}

	var res Result
	res.AddHooks(h)
	for _, row := range []string{RowStatusLine, RowHookPromptNew, RowHookPromptShown} {
		if _, ok := res.Check(row); !ok {
			t.Errorf("no check of %s in %+v", row, res.Checks)
		}
	}
}

func TestRunHooksFailures(t *testing.T) {
	for name, cfg := range map[string]HookConfig{
		"no binary":     {},
		"negative runs": {Binary: "switchboard", Runs: -1},
		"no unread":     {Binary: "switchboard", Unread: -1},
	} {
		if _, err := RunHooks(context.Background(), cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: got %v, want a configuration error", name, err)
		}
	}
	dir := t.TempDir()
	_, err := RunHooks(context.Background(), HookConfig{Binary: filepath.Join(dir, "no-such-switchboard"), Unread: 1, Runs: 1, Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "init") {
		t.Errorf("got %v, want an error running switchboard init", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "switchboard-bench-hooks-*")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestRunHooksStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := RunHooks(ctx, HookConfig{Binary: switchboardBinary(t), Unread: 10, Runs: 1000, Dir: t.TempDir()})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}
