package profiling

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sync"
)

// Env is the variable that names the folder profiles go to.
const Env = "SWITCHBOARD_CPU_PROFILE"

// running is the profile under way, if any.
var running struct {
	mu   sync.Mutex
	file *os.File
}

// FromEnv starts profiling the process when Env names a folder; Stop ends
// it and writes the profile. When it cannot, the error says why, and the
// program runs as usual.
func FromEnv(program string) error {
	dir := os.Getenv(Env)
	if dir == "" {
		return nil
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s-%d.pprof", program, os.Getpid())))
	if err != nil {
		return fmt.Errorf("no CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return fmt.Errorf("no CPU profile: %w", err)
	}
	running.mu.Lock()
	running.file = f
	running.mu.Unlock()
	return nil
}

// Stop ends the profile under way, if any, and writes it.
func Stop() { end(false) }

// Discard ends the profile under way, if any, and removes it: the process
// is about to become another program (exec), which profiles itself, and
// must not inherit the profiling timer.
func Discard() { end(true) }

func end(discard bool) {
	running.mu.Lock()
	defer running.mu.Unlock()
	if running.file == nil {
		return
	}
	pprof.StopCPUProfile()
	running.file.Close()
	if discard {
		os.Remove(running.file.Name())
	}
	running.file = nil
}
