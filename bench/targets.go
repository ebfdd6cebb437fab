package bench

import (
	"fmt"
	"time"
)

// The targets of the issue, for the master on a 2-core machine at the
// default numbers (20 agents, 200 msg/s).
const (
	// TargetP50Ratio bounds the steady p50 to this many times the floor's.
	TargetP50Ratio = 2.0
	TargetP99      = 5 * time.Millisecond
	// TargetBurstRatio is the least burst throughput without fsync, as a
	// share of the floor's in the same run.
	TargetBurstRatio = 0.7
	// TargetDurableBurstRatio is the least durable burst throughput, as a
	// share of the durable floor's in the same run. It is above
	// TargetBurstRatio: with fsync the disk sets the pace of both, and the
	// master syncs a burst's records and copies in groups where the floor
	// syncs each copy and its folder in turn.
	TargetDurableBurstRatio = 0.8
	TargetIdlePercent       = 0.1 // of one core
)

// The team's targets: a team of DefaultTeamAgents at rest in tmux, the
// master and the tmux server together, and a notice to one of them.
const (
	TargetTeamRestPercent         = 0.5 // of one core
	TargetTeamRestHooklessPercent = 0.3 // of one core, agents without hooks
	TargetTeamNotice              = 500 * time.Millisecond
	// TargetTeamTypingPercent bounds the master with the processes it
	// starts while notices are typed at DefaultTypingRate a second.
	TargetTeamTypingPercent = 10.0 // of one core
	// The console beside the team at rest, and a frame of it.
	TargetConsoleRestPercent = 0.2 // of one core
	TargetConsoleFrame       = 50 * time.Millisecond
)

// The rest's targets and rows: a team of DefaultTeamAgents brought up as a
// person does, at rest, every process it started summed (console and MCP
// servers included), beyond tmux alone with the same panes; one idle MCP
// server, of DefaultRestMCPs side by side.
const (
	TargetRestAbovePercent = 0.3   // of one core
	TargetRestMCPPercent   = 0.012 // of one core
	RowRestHookless        = "rest_hookless"
	RowRestHooks           = "rest_hooks"
	RowRestMCP             = "rest_mcp"
)

// The history's targets: a master started on 1,000,000 records and
// 100,000 unread inbox files.
const (
	TargetHistoryRSS      = 64 << 20 // bytes, after the start and at rest
	TargetHistoryStart    = time.Second
	TargetHistoryDelivery = 500 * time.Millisecond // a message posted a second after the start
	TargetHistoryRest     = 0.1                    // percent of one core
)

// TargetMemoryGrowth bounds how much more resident memory a master holds
// after routing DefaultMemoryMessages messages than after a fifth of them.
const TargetMemoryGrowth = 8 << 20 // bytes

// The hooks' targets: the median wall time of the whole process, start-up
// included, with DefaultHookUnread messages unread. They run before every
// prompt and after every tool call, and the agent waits for them.
const (
	TargetHookPrompt = 10 * time.Millisecond
	TargetStatusLine = 5 * time.Millisecond
)

// Rows of the result that checks refer to.
const (
	RowSteadyDurable = "steady_durable"
	RowSteadyNoFsync = "steady_no_fsync"
	RowBurstDurable  = "burst_durable"
	RowBurstNoFsync  = "burst_no_fsync"
	RowIdleCPU       = "idle_cpu"
	// The team's rows: TeamResult's rest and notice.
	RowTeamRest         = "team_rest"
	RowTeamRestHookless = "team_rest_hookless"
	RowTeamNotice       = "team_notice"
	RowTeamTyping       = "team_typing"
	RowConsoleRest      = "console_rest"
	RowConsoleFrame     = "console_frame"
	// The history's rows: HistoryResult.Long.
	RowHistoryRSS     = "history_rss"
	RowHistoryRestart = "history_restart"
	RowHistoryRest    = "history_rest"
	// The hub's rows: HubResult's remote delivery beside the local one.
	RowHubP50   = "hub_p50"
	RowHubBurst = "hub_burst"
	// The scale run's rows: HubScaleResult at rest, at a steady rate across
	// hosts beside one host, and an agent's state reaching every host.
	RowScaleRest     = "hub_scale_rest"
	RowScaleP50      = "hub_scale_p50"
	RowScaleLoad     = "hub_scale_load"
	RowScalePresence = "hub_scale_presence"
	RowScaleJoined   = "hub_scale_joined"
	RowScaleLost     = "hub_scale_lost"
	// The memory run's row: MemoryResult.Master's growth.
	RowMemoryGrowth = "memory_growth"
	// The hooks' rows: HookResult.StatusLine, PromptNew and PromptShown.
	RowStatusLine      = "status_line"
	RowHookPromptNew   = "hook_prompt_new"
	RowHookPromptShown = "hook_prompt_shown"
)

// Check is one target and whether the master met it.
type Check struct {
	Row    string `json:"row"`
	Target string `json:"target"`
	Pass   bool   `json:"pass"`
}

// check compares the master's numbers and the hooks' with the targets.
func (r *Result) check() {
	r.Checks = nil
	if r.Master != nil {
		r.checkRouting()
	}
	if r.Hooks != nil {
		r.checkHooks()
	}
	if r.Team != nil {
		r.checkTeam()
	}
	if r.Rest != nil {
		r.checkRest()
	}
	if r.History != nil {
		r.checkHistory()
	}
	if r.Hub != nil {
		r.checkHub()
	}
	if r.Memory != nil {
		r.checkMemory()
	}
	for _, h := range r.HubScale {
		r.checkHubScale(h)
	}
}

// checkHubScale checks a team of many hosts: at rest, across hosts at a
// steady rate beside one host, and its states.
func (r *Result) checkHubScale(h *HubScaleResult) {
	what := "one hub"
	if h.Cluster {
		what = "three hubs"
	}
	row := func(name string) string { return fmt.Sprintf("%s (%s)", name, what) }
	r.Checks = append(r.Checks,
		Check{
			Row:    row(RowScaleRest),
			Target: fmt.Sprintf("≤ %g%% of a core", h.restTarget()),
			Pass:   h.Rest.Total() <= h.restTarget(),
		},
		Check{
			Row:    row(RowScaleP50),
			Target: fmt.Sprintf("≤ %g× one host", TargetScaleP50Ratio),
			Pass:   h.Steady.Lost == 0 && float64(h.Steady.P50) <= TargetScaleP50Ratio*float64(h.SteadyLocal.P50),
		},
		Check{
			Row:    row(RowScaleLoad),
			Target: fmt.Sprintf("hub ≤ %g%% of a core", TargetScaleLoadHubShare),
			Pass:   h.Load.Hub <= TargetScaleLoadHubShare,
		},
		Check{
			Row:    row(RowScalePresence),
			Target: fmt.Sprintf("≤ %s", TargetScalePresence),
			Pass:   h.Presence > 0 && h.Presence <= TargetScalePresence,
		},
		Check{
			Row:    row(RowScaleLost),
			Target: "none",
			Pass:   h.Lost() == 0 && h.SteadyLocal.Lost == 0,
		})
	if h.Cluster {
		r.Checks = append(r.Checks, Check{
			Row:    row(RowScaleJoined),
			Target: fmt.Sprintf("≤ %s", TargetScaleJoinedCluster),
			Pass:   h.Joined > 0 && h.Joined <= TargetScaleJoinedCluster,
		})
	}
}

// checkHub checks delivery across hosts against delivery on one.
func (r *Result) checkHub() {
	h := r.Hub
	r.Checks = append(r.Checks,
		Check{
			Row:    RowHubP50,
			Target: fmt.Sprintf("≤ %g× local", TargetHubP50Ratio),
			Pass:   h.Remote.Latency.Lost == 0 && float64(h.Remote.Latency.P50) <= TargetHubP50Ratio*float64(h.Local.Latency.P50),
		},
		Check{
			Row:    RowHubBurst,
			Target: fmt.Sprintf("≥ %g× local", TargetHubBurstRatio),
			Pass:   h.Remote.Burst.Lost == 0 && h.Remote.Burst.PerSecond >= TargetHubBurstRatio*h.Local.Burst.PerSecond,
		})
}

// checkHistory checks the master started on a long history.
func (r *Result) checkHistory() {
	l := r.History.Long
	r.Checks = append(r.Checks,
		Check{
			Row:    RowHistoryRSS,
			Target: fmt.Sprintf("≤ %d MiB", TargetHistoryRSS>>20),
			Pass:   max(l.RSS, l.RestRSS) <= TargetHistoryRSS,
		},
		Check{
			Row:    RowHistoryRestart,
			Target: fmt.Sprintf("runs ≤ %g s, then delivers ≤ %g ms", TargetHistoryStart.Seconds(), ms(TargetHistoryDelivery)),
			Pass:   l.Start <= TargetHistoryStart && l.Delivery <= TargetHistoryDelivery,
		},
		Check{
			Row:    RowHistoryRest,
			Target: fmt.Sprintf("≤ %g %% of a core", TargetHistoryRest),
			Pass:   l.Rest <= TargetHistoryRest,
		})
}

// checkTeam checks the team at rest and its notice.
func (r *Result) checkTeam() {
	t := r.Team
	r.Checks = append(r.Checks,
		Check{
			Row:    RowTeamRest,
			Target: fmt.Sprintf("≤ %g %% of a core", TargetTeamRestPercent),
			Pass:   t.MasterRest+t.TmuxRest <= TargetTeamRestPercent,
		},
		Check{
			Row:    RowTeamRestHookless,
			Target: fmt.Sprintf("≤ %g %% of a core", TargetTeamRestHooklessPercent),
			Pass:   t.HooklessMasterRest+t.HooklessTmuxRest <= TargetTeamRestHooklessPercent,
		},
		Check{
			Row:    RowTeamNotice,
			Target: fmt.Sprintf("≤ %g ms", ms(TargetTeamNotice)),
			Pass:   t.Notice <= TargetTeamNotice,
		})
	if c := t.Console; c != nil {
		r.Checks = append(r.Checks,
			Check{Row: RowConsoleRest, Target: fmt.Sprintf("≤ %g %% of a core", TargetConsoleRestPercent), Pass: c.Rest <= TargetConsoleRestPercent},
			// A frame is what top --once takes beyond starting a process.
			Check{Row: RowConsoleFrame, Target: fmt.Sprintf("≤ %g ms beyond the floor", ms(TargetConsoleFrame)), Pass: c.Frame-c.FrameFloor <= TargetConsoleFrame})
	}
	if t.Typing != nil {
		r.Checks = append(r.Checks, Check{
			Row:    RowTeamTyping,
			Target: fmt.Sprintf("≤ %g %% of a core", TargetTeamTypingPercent),
			Pass:   t.Typing.Typed > 0 && t.Typing.Master <= TargetTeamTypingPercent,
		})
	}
}

// checkRest checks the teams at rest against tmux alone, and an idle MCP
// server.
func (r *Result) checkRest() {
	above := fmt.Sprintf("≤ %g %% of a core above tmux alone", TargetRestAbovePercent)
	r.Checks = append(r.Checks,
		Check{Row: RowRestHookless, Target: above, Pass: r.Rest.Hookless.Above() <= TargetRestAbovePercent},
		Check{Row: RowRestHooks, Target: above, Pass: r.Rest.Hooks.Above() <= TargetRestAbovePercent},
		Check{Row: RowRestMCP, Target: fmt.Sprintf("≤ %g %% of a core", TargetRestMCPPercent), Pass: r.Rest.MCP.Each <= TargetRestMCPPercent})
}

// checkRouting checks the master. A lost message misses every target of
// its row.
func (r *Result) checkRouting() {
	// Targets are set against the floor of the same run: the machine is
	// noisy, and its disk sets the pace of both.
	steady := func(row string, l, floor Latency) {
		target := time.Duration(TargetP50Ratio * float64(floor.P50))
		r.Checks = append(r.Checks, Check{
			Row:    row,
			Target: fmt.Sprintf("p50 ≤ %g× floor (%.2f ms), p99 ≤ %g ms", TargetP50Ratio, ms(target), ms(TargetP99)),
			Pass:   l.Lost == 0 && l.P50 <= target && l.P99 <= TargetP99,
		})
	}
	burst := func(row string, t, floor Throughput, ratio float64) {
		target := ratio * floor.PerSecond
		r.Checks = append(r.Checks, Check{
			Row:    row,
			Target: fmt.Sprintf("≥ %g× floor (%.0f msg/s)", ratio, target),
			Pass:   t.Lost == 0 && t.Share(floor) >= ratio,
		})
	}
	steady(RowSteadyDurable, r.Master.Durable.Steady, r.Floor.Durable.Steady)
	steady(RowSteadyNoFsync, r.Master.NoFsync.Steady, r.Floor.NoFsync.Steady)
	burst(RowBurstDurable, r.Master.Durable.Burst, r.Floor.Durable.Burst, TargetDurableBurstRatio)
	burst(RowBurstNoFsync, r.Master.NoFsync.Burst, r.Floor.NoFsync.Burst, TargetBurstRatio)
	if r.IdleCPU != nil {
		r.Checks = append(r.Checks, Check{
			Row:    RowIdleCPU,
			Target: fmt.Sprintf("≤ %g %% of a core", TargetIdlePercent),
			Pass:   r.IdleCPU.Percent <= TargetIdlePercent,
		})
	}
}

// checkHooks checks the medians. Both hook rows are held to the target:
// the first prompt after mail arrived and every later one are waited for
// alike.
func (r *Result) checkHooks() {
	median := func(row string, t Timing, target time.Duration) {
		r.Checks = append(r.Checks, Check{
			Row:    row,
			Target: fmt.Sprintf("median ≤ %g ms", ms(target)),
			Pass:   t.P50 <= target,
		})
	}
	median(RowStatusLine, r.Hooks.StatusLine, TargetStatusLine)
	median(RowHookPromptNew, r.Hooks.PromptNew, TargetHookPrompt)
	median(RowHookPromptShown, r.Hooks.PromptShown, TargetHookPrompt)
}

// Check returns the check of a row, if the row has one.
func (r *Result) Check(row string) (Check, bool) {
	for _, c := range r.Checks {
		if c.Row == row {
			return c, true
		}
	}
	return Check{}, false
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
