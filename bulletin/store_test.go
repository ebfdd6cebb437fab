package bulletin

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// A test binary started with SWITCHBOARD_TEST_ACQUIRE=dir:agent is one of
// the racing processes of TestFortyProcessesRaceForOneLock.
func TestMain(m *testing.M) {
	if spec := os.Getenv("SWITCHBOARD_TEST_ACQUIRE"); spec != "" {
		dir, agent, _ := strings.Cut(spec, ":")
		if err := NewStore(dir).Acquire("build", agent, "racing"); err != nil {
			if errors.Is(err, ErrHeld) {
				os.Exit(3)
			}
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestFortyProcessesRaceForOneLock(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	codes := make([]int, 40)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), fmt.Sprintf("SWITCHBOARD_TEST_ACQUIRE=%s:agent%02d", dir, i))
			err := cmd.Run()
			var exitErr *exec.ExitError
			if errors.As(err, &exitErr) {
				codes[i] = exitErr.ExitCode()
			} else if err != nil {
				codes[i] = -1
			}
		}()
	}
	wg.Wait()
	winners := 0
	for i, code := range codes {
		switch code {
		case 0:
			winners++
		case 3:
		default:
			t.Errorf("process %d exited %d; want 0 (won) or 3 (held)", i, code)
		}
	}
	b, err := NewStore(dir).Read()
	if err != nil {
		t.Fatal(err)
	}
	if winners != 1 || len(b.SharedResources) != 1 {
		t.Fatalf("%d winners, bulletin holds %v; want exactly one", winners, b.SharedResources)
	}
	holder := b.SharedResources["build"].Holder
	var winner string
	for i, code := range codes {
		if code == 0 {
			winner = fmt.Sprintf("agent%02d", i)
		}
	}
	if holder != winner {
		t.Errorf("the bulletin names %s, but %s won", holder, winner)
	}
}

func TestConcurrentUpdatesLoseNothing(t *testing.T) {
	s := NewStore(t.TempDir())
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := s.Update(func(b *Bulletin) error {
				b.Warnings = append(b.Warnings, Warning{Text: fmt.Sprintf("w%d", i)})
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	b, err := s.Read()
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Warnings) != 40 {
		t.Errorf("%d warnings after 40 concurrent updates; want 40", len(b.Warnings))
	}
}

func TestLocks(t *testing.T) {
	s := NewStore(t.TempDir())
	if err := s.Acquire("db", "developer_agent", "migrating"); err != nil {
		t.Fatal(err)
	}
	if err := s.Acquire("db", "developer_agent", "still migrating"); err != nil {
		t.Errorf("the holder could not renew its lock: %v", err)
	}
	err := s.Acquire("db", "tester_agent", "")
	if !errors.Is(err, ErrHeld) || !strings.Contains(err.Error(), "db is held by developer_agent") || !strings.Contains(err.Error(), "(still migrating)") {
		t.Errorf("Acquire by another: %v; want ErrHeld naming the holder and reason", err)
	}
	if _, err := s.Release("db", "tester_agent", false); !errors.Is(err, ErrNotHolder) {
		t.Errorf("Release by another: %v; want ErrNotHolder", err)
	}
	if l, err := s.Release("db", "operator", true); err != nil || l.Holder != "developer_agent" {
		t.Errorf("forced Release = %+v, %v", l, err)
	}
	if _, err := s.Release("db", "developer_agent", false); err == nil || !strings.Contains(err.Error(), "db is not locked") {
		t.Errorf("Release of a free resource: %v", err)
	}
}

func TestFailedChangeWritesNothingAndReadersSeeWholeDocuments(t *testing.T) {
	s := NewStore(t.TempDir())
	if err := s.Update(func(b *Bulletin) error { b.CurrentPhase = "design"; return nil }); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := s.Update(func(b *Bulletin) error { b.CurrentPhase = "oops"; return boom }); !errors.Is(err, boom) {
		t.Fatalf("Update = %v; want the change's error", err)
	}
	b, _ := s.Read()
	if b.CurrentPhase != "design" || b.SystemStatus != DefaultStatus {
		t.Errorf("bulletin = %+v; want the phase before the failed change", b)
	}
	data, _ := os.ReadFile(s.Path())
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"system_status", "active_agents", "warnings", "shared_resources", "agents", "shared_state"} {
		if _, ok := raw[key]; !ok {
			t.Errorf("bulletin JSON lacks %q", key)
		}
	}
}
