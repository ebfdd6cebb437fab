package bench

// Option is one setting of a Suite a person may give, declared once: named
// in words, the words an OptionError uses (a command's flag joins them with
// "-"), with its help, bound to the field of the suite that holds it, whose
// value when bound is its default.
type Option struct {
	Words, Help string
	// Value is the field: an *int, a *time.Duration or a *string.
	Value any
}

// DefaultSuite is a Suite with the numbers of the targets: routing, hooks
// and team, and each part that runs only when asked for, with its own.
func DefaultSuite() Suite {
	return Suite{
		Routing: Config{Agents: DefaultAgents, Rate: DefaultRate, Duration: DefaultDuration, Burst: DefaultBurst, Idle: DefaultIdle},
		Hooks:   HookConfig{Unread: DefaultHookUnread, Runs: DefaultHookRuns},
		Team:    TeamConfig{Agents: DefaultTeamAgents, Idle: DefaultTeamIdle},
		Soak: SoakConfig{Duration: DefaultSoakDuration, Agents: DefaultSoakAgents, Rate: DefaultSoakRate,
			Kills: DefaultSoakKills, Sample: DefaultSoakSample},
		Worktree: WorktreeConfig{Files: DefaultWorktreeFiles},
		History: HistoryConfig{Records: DefaultHistoryRecords, InboxFiles: DefaultHistoryInboxFiles,
			Agents: DefaultHistoryAgents, Rest: DefaultHistoryRest},
		Memory: MemoryConfig{Messages: DefaultMemoryMessages},
		HubScale: HubScaleConfig{Hosts: DefaultScaleHosts, Agents: DefaultScaleAgents, Rest: DefaultScaleRest,
			Steady: DefaultScaleSteady, Burst: DefaultScaleBurst, Volume: DefaultScaleVolume},
		ScaleHubs: ScaleBothHubs,
	}
}

// Options are the settings of s a person may give, bound to its fields.
func (s *Suite) Options() []Option {
	return []Option{
		{"only", "measure one part: routing, hooks, team, rest, history, soak, worktree, hub, hub-scale or memory (default: routing, hooks and team)", &s.Only},
		{"dir", "make the temporary workspaces in this folder (default: $TMPDIR or /tmp); file creation costs differ between folders, so measure where your team lives", &s.Dir},
		{"agents", "agents in the team", &s.Routing.Agents},
		{"rate", "messages per second of the steady run", &s.Routing.Rate},
		{"duration", "length of the steady run", &s.Routing.Duration},
		{"burst", "messages posted at once in the burst run", &s.Routing.Burst},
		{"idle", "how long to watch the idle master's CPU use; 0 skips it", &s.Routing.Idle},
		{"hooks unread", "unread messages in the inbox while the hooks are timed", &s.Hooks.Unread},
		{"hooks runs", "times each hook command is run", &s.Hooks.Runs},
		{"team agents", "agents of the team at rest in tmux", &s.Team.Agents},
		{"team idle", "how long the team at rest is watched", &s.Team.Idle},
		{"soak duration", "how long the soak's load runs", &s.Soak.Duration},
		{"soak agents", "agents of the soak's team", &s.Soak.Agents},
		{"soak rate", "messages per second of the soak", &s.Soak.Rate},
		{"soak kills", "SIGKILLs of the master during the soak, spread over it", &s.Soak.Kills},
		{"soak sample", "how often the soak measures the master", &s.Soak.Sample},
		{"worktree files", "files in the repository the worktree run spawns into", &s.Worktree.Files},
		{"history records", "records in the log of the history run", &s.History.Records},
		{"history inbox files", "unread inbox files of the history run", &s.History.InboxFiles},
		{"history agents", "agents of the history run", &s.History.Agents},
		{"history rest", "how long the master on a long history is watched at rest", &s.History.Rest},
		{"memory messages", "messages the memory run routes", &s.Memory.Messages},
		{"memory baseline", "another switchboard binary whose master the memory run measures too, beside", &s.Memory.Baseline},
		{"rest baseline", "another switchboard binary whose teams at rest and MCP servers the rest run measures too, beside", &s.Rest.Baseline},
		{"scale hosts", "masters of the scale run, each a host", &s.HubScale.Hosts},
		{"scale agents", "agents of each host of the scale run", &s.HubScale.Agents},
		{"scale rest", "how long the scale run's team is watched at rest", &s.HubScale.Rest},
		{"scale steady", "how long the scale run sends 100 msg/s, within one host then across hosts", &s.HubScale.Steady},
		{"scale burst", "messages the scale run posts at once across hosts", &s.HubScale.Burst},
		{"scale volume", "messages across hosts before the scale run measures the hub's disk", &s.HubScale.Volume},
		{"scale hubs", "the hubs of the scale run: one, three (a cluster) or both, one after the other", &s.ScaleHubs},
	}
}
