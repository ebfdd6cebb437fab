package bench

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// Config says what to measure. The zero value of a field takes its default.
type Config struct {
	// Binary is the switchboard executable whose `master` command is
	// measured. Empty measures the floor alone.
	Binary string
	// Agents is the size of the team; messages go from a random agent to a
	// random other one.
	Agents int
	// Rate is the steady rate, in messages per second, for Duration.
	Rate     int
	Duration time.Duration
	// Burst is how many messages are posted as fast as possible.
	Burst int
	// Idle is how long the master's CPU time is watched while it has nothing
	// to do, after the other runs. Negative skips it.
	Idle time.Duration
	// Patience is how long a run waits for the next delivery before it counts
	// the messages not yet seen as lost.
	Patience time.Duration
	// Dir is the folder the temporary workspaces are made in; empty is the
	// system's temporary folder. File creation costs differ between
	// filesystems, and even between folders of one: measure where the team
	// will live.
	Dir string
	// Progress, when set, receives one line as each run starts and ends.
	Progress io.Writer
}

// Defaults, the numbers of the targets.
const (
	DefaultAgents   = 20
	DefaultRate     = 200
	DefaultDuration = 5 * time.Second
	DefaultBurst    = 2000
	DefaultIdle     = 10 * time.Second
	DefaultPatience = 5 * time.Second
)

// Quick is a configuration small enough for tests and a first look: a few
// seconds in all.
func Quick() Config {
	return Config{Agents: 4, Rate: 100, Duration: time.Second, Burst: 200, Idle: time.Second}
}

// ErrConfig is wrapped by every error about a configuration's value.
var ErrConfig = errors.New("bench: bad configuration")

// OptionError is a value of a configuration that a run cannot take. Option
// names it in words, like "hooks runs", the same words for every front end:
// the command's flag is named after them, --hooks-runs.
type OptionError struct {
	Option string
	// Want says what the option takes, like "must be at least 1", or how
	// the value given is wrong.
	Want string
}

func (e *OptionError) Error() string { return "bench: " + e.Option + " " + e.Want }

// Unwrap makes an OptionError an ErrConfig.
func (e *OptionError) Unwrap() error { return ErrConfig }

// want is the error of option, which must be as it says.
func want(option, format string, args ...any) error {
	return &OptionError{Option: option, Want: fmt.Sprintf(format, args...)}
}

// withDefaults fills the zero fields and checks the rest.
func (c Config) withDefaults() (Config, error) {
	if c.Agents == 0 {
		c.Agents = DefaultAgents
	}
	if c.Rate == 0 {
		c.Rate = DefaultRate
	}
	if c.Duration == 0 {
		c.Duration = DefaultDuration
	}
	if c.Burst == 0 {
		c.Burst = DefaultBurst
	}
	if c.Idle == 0 {
		c.Idle = DefaultIdle
	}
	if c.Patience == 0 {
		c.Patience = DefaultPatience
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
	if c.Patience < 0 {
		return c, fmt.Errorf("%w: patience is %s; give a positive duration", ErrConfig, c.Patience)
	}
	return c, c.check()
}

// maxRate is the fastest steady rate, in messages per second.
const maxRate = 100_000

// check checks the numbers a person gives, as given: a zero is no default.
func (c Config) check() error {
	switch {
	case c.Agents < 2:
		return want("agents", "must be at least 2: a message needs a sender and another recipient")
	case c.Agents > maxAgents:
		return want("agents", "must be at most %d", maxAgents)
	case c.Rate < 1:
		return want("rate", "must be at least 1 message per second")
	case c.Rate > maxRate:
		return want("rate", "must be at most %d messages per second", maxRate)
	case c.Duration <= 0:
		return want("duration", "must be positive, like 5s")
	case c.Burst < 1:
		return want("burst", "must be at least 1 message")
	}
	return nil
}

// steadyCount is how many messages the steady run posts.
func (c Config) steadyCount() int {
	return max(1, int(float64(c.Rate)*c.Duration.Seconds()+0.5))
}
