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

// ErrConfig is wrapped by every error about a Config value.
var ErrConfig = errors.New("bench: bad configuration")

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
	switch {
	case c.Agents < 2 || c.Agents > maxAgents:
		return c, fmt.Errorf("%w: agents is %d; give 2 to %d, a message needs a sender and another recipient", ErrConfig, c.Agents, maxAgents)
	case c.Rate < 0 || c.Rate > 100_000:
		return c, fmt.Errorf("%w: rate is %d messages per second; give 1 to 100000", ErrConfig, c.Rate)
	case c.Duration < 0:
		return c, fmt.Errorf("%w: duration is %s; give a positive duration", ErrConfig, c.Duration)
	case c.Burst < 0:
		return c, fmt.Errorf("%w: burst is %d messages; give a positive number", ErrConfig, c.Burst)
	case c.Patience < 0:
		return c, fmt.Errorf("%w: patience is %s; give a positive duration", ErrConfig, c.Patience)
	}
	return c, nil
}

// steadyCount is how many messages the steady run posts.
func (c Config) steadyCount() int {
	return max(1, int(float64(c.Rate)*c.Duration.Seconds()+0.5))
}
