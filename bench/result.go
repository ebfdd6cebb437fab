package bench

import (
	"math"
	"slices"
	"time"
)

// Result is everything one Run measured, and the hooks' figures when
// AddHooks was given them. The routing fields are zero, and left out of the
// JSON, when only the hooks were measured.
type Result struct {
	Agents   int           `json:"agents,omitzero"`
	Rate     int           `json:"rate,omitzero"`
	Duration time.Duration `json:"duration_ns,omitzero"`
	Burst    int           `json:"burst,omitzero"`
	// Floor is the minimal relay; Master the real one, nil when no binary
	// was given.
	Floor  Router  `json:"floor,omitzero"`
	Master *Router `json:"master,omitempty"`
	// IdleCPU is the master's CPU use while idle; nil when not measured.
	IdleCPU *IdleCPU `json:"idle_cpu,omitempty"`
	// Hooks is the hooks' wall time (RunHooks); nil when not measured.
	Hooks *HookResult `json:"hooks,omitempty"`
	// Team is a team at rest in tmux (RunTeam); nil when not measured.
	Team *TeamResult `json:"team,omitempty"`
	// Rest is teams at rest, every process summed (RunRest); nil when not
	// measured.
	Rest *RestResult `json:"rest,omitempty"`
	// History is the master started on a long history (RunHistory); nil
	// when not measured.
	History *HistoryResult `json:"history,omitempty"`
	// Soak is a team worked for a long time (RunSoak); nil when not run.
	Soak *SoakResult `json:"soak,omitempty"`
	// Worktree is a spawn with a git worktree (RunWorktree); nil when not run.
	Worktree *WorktreeResult `json:"worktree,omitempty"`
	// Hub is delivery across hosts (RunHub); nil when not run.
	Hub *HubResult `json:"hub,omitempty"`
	// Memory is a master's memory while it routes (RunMemory); nil when
	// not run.
	Memory *MemoryResult `json:"memory,omitempty"`
	// HubScale is a team of many hosts through its hub (RunHubScale): one
	// hub, and a cluster of three; empty when not run.
	HubScale []*HubScaleResult `json:"hub_scale,omitempty"`
	// Checks are the targets, each met or missed.
	Checks []Check `json:"checks,omitempty"`
}

// Router is what one router did with and without fsync.
type Router struct {
	Durable Variant `json:"durable"`
	NoFsync Variant `json:"no_fsync"`
}

// Variant is one router in one durability setting.
type Variant struct {
	Steady Latency    `json:"steady"`
	Burst  Throughput `json:"burst"`
}

// Latency is the outbox-to-inbox time of the steady run.
type Latency struct {
	Count int           `json:"count"` // messages posted
	Lost  int           `json:"lost"`  // not seen in an inbox
	P50   time.Duration `json:"p50_ns"`
	P99   time.Duration `json:"p99_ns"`
	Max   time.Duration `json:"max_ns"`
}

// Throughput is the burst run: Count messages posted at once.
type Throughput struct {
	Count int `json:"count"`
	Lost  int `json:"lost"`
	// Elapsed runs from the first post to the last delivery seen.
	Elapsed   time.Duration `json:"elapsed_ns"`
	PerSecond float64       `json:"per_second"`
	// Posting is how long posting alone took: when it is close to Elapsed,
	// the sender, not the router, set the pace.
	Posting time.Duration `json:"posting_ns"`
}

// Share is t's messages per second as a share of floor's, measured in the
// same run: 1 is as fast as the floor. It is 0 when the floor has none.
func (t Throughput) Share(floor Throughput) float64 {
	if floor.PerSecond <= 0 {
		return 0
	}
	return t.PerSecond / floor.PerSecond
}

// IdleCPU is the CPU time the master used while it had nothing to route.
// /proc counts in ticks of 10 ms, so over 10 s the resolution is 0.1 %.
type IdleCPU struct {
	Window  time.Duration `json:"window_ns"`
	CPU     time.Duration `json:"cpu_ns"`
	Percent float64       `json:"percent_of_core"`
}

// latencyOf summarizes the outcome of n messages.
func latencyOf(n int, out outcome) Latency {
	l := Latency{Count: n, Lost: out.lost}
	if len(out.latencies) == 0 {
		return l
	}
	sorted := slices.Clone(out.latencies)
	slices.Sort(sorted)
	l.P50 = percentile(sorted, 0.50)
	l.P99 = percentile(sorted, 0.99)
	l.Max = sorted[len(sorted)-1]
	return l
}

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []time.Duration, p float64) time.Duration {
	rank := int(math.Ceil(p * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}
