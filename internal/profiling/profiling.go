package profiling

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sync"
	"time"
)

// Env is the variable that names the folder profiles go to; EnvAfter, a
// duration ("20s"), how long after its start a process begins its
// profile: a run's quiet part (a team at rest) is seen without its start.
const (
	Env      = "SWITCHBOARD_CPU_PROFILE"
	EnvAfter = "SWITCHBOARD_CPU_PROFILE_AFTER"
)

// running is the profile under way, if any.
var running struct {
	mu      sync.Mutex
	file    *os.File
	pending *time.Timer // the start to come, with EnvAfter
	ended   bool
}

// FromEnv starts profiling the process when Env names a folder, at once
// or EnvAfter later; Stop ends it and writes the profile. When it cannot,
// the error says why, and the program runs as usual.
func FromEnv(program string) error {
	dir := os.Getenv(Env)
	if dir == "" {
		return nil
	}
	var after time.Duration
	if v := os.Getenv(EnvAfter); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("no CPU profile: %s is not a duration: %w", EnvAfter, err)
		}
		after = d
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%d.pprof", program, os.Getpid()))
	if after <= 0 {
		return start(path)
	}
	running.mu.Lock()
	defer running.mu.Unlock()
	running.pending = time.AfterFunc(after, func() { _ = start(path) })
	return nil
}

// start begins the profile into a new file at path.
func start(path string) error {
	running.mu.Lock()
	defer running.mu.Unlock()
	if running.ended {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("no CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return fmt.Errorf("no CPU profile: %w", err)
	}
	running.file = f
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
	running.ended = true
	if running.pending != nil {
		running.pending.Stop()
	}
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
