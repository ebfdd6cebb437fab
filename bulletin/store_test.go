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
	for _, key := range []string{"system_status", "active_agents", "warnings", "shared_resources", "agents"} {
		if _, ok := raw[key]; !ok {
			t.Errorf("bulletin JSON lacks %q", key)
		}
	}
}

// TestTheSharedStateIsBoundedAndApart: a value over its bound, and a state
// that would grow over its own, are refused with the bound named; the
// state is kept apart from the bulletin the hooks read, and a bulletin of
// an earlier version that held it gives it over.
func TestTheSharedStateIsBoundedAndApart(t *testing.T) {
	s := NewStore(t.TempDir())
	if err := s.Ensure(); err != nil {
		t.Fatal(err)
	}
	old := `{"system_status":"normal","shared_state":{"build":"green"}}`
	if err := os.WriteFile(s.Path(), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if state, err := s.ReadState(); err != nil || string(state["build"]) != `"green"` {
		t.Fatalf("the state of an earlier bulletin: %v, %v", state, err)
	}
	big := json.RawMessage(`"` + strings.Repeat("x", MaxStateValue) + `"`)
	if err := s.SetState("big", big); !errors.Is(err, ErrTooBig) || !strings.Contains(err.Error(), "65536 bytes a value") {
		t.Errorf("a value over the bound: %v", err)
	}
	value := json.RawMessage(`"` + strings.Repeat("x", MaxStateValue-100) + `"`)
	var err error
	for i := 0; err == nil; i++ {
		err = s.SetState(fmt.Sprintf("k%d", i), value)
	}
	if !errors.Is(err, ErrTooBig) || !strings.Contains(err.Error(), "1048576 bytes in all") {
		t.Errorf("a state over the bound: %v", err)
	}
	if state, _ := s.ReadState(); string(state["build"]) != `"green"` {
		t.Errorf("the earlier state was lost: %v", state["build"])
	}
	if info, _ := os.Stat(s.Path()); info.Size() > 4096 {
		t.Errorf("the bulletin the hooks read is %d bytes with the state beside it", info.Size())
	}
	data, _ := os.ReadFile(s.Path())
	if strings.Contains(string(data), "shared_state") {
		t.Errorf("the bulletin still holds the shared state:\n%s", data)
	}
}
