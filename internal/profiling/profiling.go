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
// profile, and EnvFor how long the profile lasts: a run's quiet part (a
// team at rest) is seen without its start and what follows.
const (
	Env      = "SWITCHBOARD_CPU_PROFILE"
	EnvAfter = "SWITCHBOARD_CPU_PROFILE_AFTER"
	EnvFor   = "SWITCHBOARD_CPU_PROFILE_FOR"
)

// running is the profile under way, if any.
var running struct {
	mu      sync.Mutex
	file    *os.File
	pending *time.Timer // the start to come, with EnvAfter
	limit   *time.Timer // the end to come, with EnvFor
	ended   bool
}

// FromEnv starts profiling the process when Env names a folder, at once
// or EnvAfter later; Stop ends it and writes the profile. When it cannot,
// the error says why (a start put off to later that fails leaves no file,
// and says nothing), and the program runs as usual.
func FromEnv(program string) error {
	dir := os.Getenv(Env)
	if dir == "" {
		return nil
	}
	after, err := duration(EnvAfter)
	if err != nil {
		return err
	}
	lasting, err := duration(EnvFor)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%d.pprof", program, os.Getpid()))
	running.mu.Lock()
	running.ended = false
	running.mu.Unlock()
	begin := func() error {
		err := start(path)
		if err == nil && lasting > 0 {
			running.mu.Lock()
			running.limit = time.AfterFunc(lasting, Stop)
			running.mu.Unlock()
		}
		return err
	}
	if after <= 0 {
		return begin()
	}
	running.mu.Lock()
	defer running.mu.Unlock()
	running.pending = time.AfterFunc(after, func() { _ = begin() })
	return nil
}

// duration is the duration the variable named gives, 0 when it is unset.
func duration(name string) (time.Duration, error) {
	v := os.Getenv(name)
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("no CPU profile: %s is not a duration: %w", name, err)
	}
	return d, nil
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
	for _, t := range []*time.Timer{running.pending, running.limit} {
		if t != nil {
			t.Stop()
		}
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
