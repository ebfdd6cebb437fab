package bench

import (
	"context"
	"errors"
	"testing"
)

// asked is a suite as the command asks for it by default.
func asked() Suite {
	return Suite{
		Routing:   Config{Agents: DefaultAgents, Rate: DefaultRate, Duration: DefaultDuration, Burst: DefaultBurst, Idle: DefaultIdle},
		Hooks:     HookConfig{Unread: DefaultHookUnread, Runs: DefaultHookRuns},
		Team:      TeamConfig{Agents: DefaultTeamAgents, Idle: DefaultTeamIdle},
		History:   HistoryConfig{Records: DefaultHistoryRecords, InboxFiles: DefaultHistoryInboxFiles, Agents: DefaultHistoryAgents, Rest: DefaultHistoryRest},
		Soak:      SoakConfig{Duration: DefaultSoakDuration, Agents: DefaultSoakAgents, Rate: DefaultSoakRate, Kills: DefaultSoakKills, Sample: DefaultSoakSample},
		Worktree:  WorktreeConfig{Files: DefaultWorktreeFiles},
		Memory:    MemoryConfig{Messages: DefaultMemoryMessages},
		HubScale:  HubScaleConfig{Hosts: DefaultScaleHosts, Agents: DefaultScaleAgents, Rest: DefaultScaleRest, Steady: DefaultScaleSteady, Burst: DefaultScaleBurst, Volume: DefaultScaleVolume},
		ScaleHubs: ScaleBothHubs,
	}
}

// TestASuiteTakesItsNumbersAsGiven: a zero is refused where none makes
// sense, named as the option it is, and taken where it means none.
func TestASuiteTakesItsNumbersAsGiven(t *testing.T) {
	if err := asked().Check(); err != nil {
		t.Fatalf("the defaults: %v", err)
	}
	for option, change := range map[string]func(*Suite){
		"agents":              func(s *Suite) { s.Routing.Agents = 0 },
		"rate":                func(s *Suite) { s.Routing.Rate = maxRate + 1 },
		"idle":                func(s *Suite) { s.Routing.Idle = -1 },
		"hooks runs":          func(s *Suite) { s.Hooks.Runs = 0 },
		"team idle":           func(s *Suite) { s.Team.Idle = 0 },
		"soak agents":         func(s *Suite) { s.Soak.Agents = 2 },
		"history inbox files": func(s *Suite) { s.History.InboxFiles = -1 },
		"worktree files":      func(s *Suite) { s.Worktree.Files = 0 },
		"memory messages":     func(s *Suite) { s.Memory.Messages = memorySamples - 1 },
		"scale volume":        func(s *Suite) { s.HubScale.Volume = 0 },
		"scale hubs":          func(s *Suite) { s.ScaleHubs = "four" },
		"only":                func(s *Suite) { s.Only = "everything" },
	} {
		s := asked()
		change(&s)
		var bad *OptionError
		if err := s.Check(); !errors.As(err, &bad) || bad.Option != option || !errors.Is(err, ErrConfig) {
			t.Errorf("%s out of range: %v; want an OptionError naming it", option, err)
		}
	}
	s := asked()
	s.Routing.Idle, s.History.InboxFiles, s.Soak.Kills = 0, 0, 0
	if err := s.Check(); err != nil {
		t.Errorf("no idle watch, no unread inbox files and no kills: %v", err)
	}
}

// TestASuiteRunsWhatItIsAskedFor: only the part named runs, and its
// figures come back.
func TestASuiteRunsWhatItIsAskedFor(t *testing.T) {
	s := asked()
	s.Only, s.Routing = PartRouting, tiny(t)
	s.Routing.Idle = 0 // none, as given
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Floor.Durable.Steady.Count == 0 || res.Hooks != nil || res.Team != nil {
		t.Errorf("routing alone: %+v", res)
	}
}
