package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// The parts of a suite, for Suite.Only.
const (
	PartRouting  = "routing"
	PartHooks    = "hooks"
	PartTeam     = "team"
	PartRest     = "rest"
	PartHistory  = "history"
	PartSoak     = "soak"
	PartWorktree = "worktree"
	PartHub      = "hub"
	PartHubScale = "hub-scale"
	PartMemory   = "memory"
)

// The hubs a suite's scale run goes through, for Suite.ScaleHubs: one, a
// cluster of three, or one then three.
const (
	ScaleOneHub    = "one"
	ScaleThreeHubs = "three"
	ScaleBothHubs  = "both"
)

// Suite is a whole bench run as a person asks for it: which parts, and the
// numbers of each. Unlike in the parts' own configurations, where a zero
// takes the default, its numbers are as given: Check refuses a zero where
// none makes sense, and a zero means none where it can (the idle watch of
// the routing, the unread inbox files of the history, the kills of the
// soak).
type Suite struct {
	// Only is the one part to run; "" runs routing, hooks and team, the
	// parts that are not only run when asked for.
	Only     string
	Routing  Config
	Hooks    HookConfig
	Team     TeamConfig
	Rest     RestConfig // its team is Team's: only its Baseline is its own
	History  HistoryConfig
	Soak     SoakConfig
	Worktree WorktreeConfig
	Hub      HubConfig
	Memory   MemoryConfig
	HubScale HubScaleConfig
	// ScaleHubs is ScaleOneHub, ScaleThreeHubs or ScaleBothHubs.
	ScaleHubs string

	// Binary, Dir and Progress are every part's (see Config).
	Binary   string
	Dir      string
	Progress io.Writer
}

// suitePart is one part of a suite and how it runs, adding its figures to res.
type suitePart struct {
	name string
	// askedFor is a part that takes long: it runs only when Only names it.
	askedFor bool
	run      func(ctx context.Context, s *Suite, res *Result) error
}

// suiteParts are a suite's parts, in the order they run.
var suiteParts = []suitePart{
	{PartRouting, false, func(ctx context.Context, s *Suite, res *Result) error {
		return adding(func(r *Result) { *res = *r })(Run(ctx, s.Routing))
	}},
	{PartHooks, false, func(ctx context.Context, s *Suite, res *Result) error {
		return adding(res.AddHooks)(RunHooks(ctx, s.Hooks))
	}},
	{PartTeam, false, func(ctx context.Context, s *Suite, res *Result) error {
		t, err := RunTeam(ctx, s.Team)
		if errors.Is(err, ErrNoTmux) && s.Only == "" {
			fmt.Fprintf(s.Progress, "team: left out: %v\n", err)
			return nil
		}
		return adding(res.AddTeam)(t, err)
	}},
	{PartRest, true, func(ctx context.Context, s *Suite, res *Result) error {
		return adding(res.AddRest)(RunRest(ctx, s.Rest))
	}},
	{PartHistory, true, func(ctx context.Context, s *Suite, res *Result) error {
		return adding(res.AddHistory)(RunHistory(ctx, s.History))
	}},
	{PartSoak, true, func(ctx context.Context, s *Suite, res *Result) error {
		return adding(res.AddSoak)(RunSoak(ctx, s.Soak))
	}},
	{PartWorktree, true, func(ctx context.Context, s *Suite, res *Result) error {
		return adding(res.AddWorktree)(RunWorktree(ctx, s.Worktree))
	}},
	{PartHub, true, func(ctx context.Context, s *Suite, res *Result) error {
		return adding(res.AddHub)(RunHub(ctx, s.Hub))
	}},
	{PartHubScale, true, func(ctx context.Context, s *Suite, res *Result) error {
		for _, cluster := range []bool{false, true} {
			if s.ScaleHubs == ScaleOneHub && cluster || s.ScaleHubs == ScaleThreeHubs && !cluster {
				continue
			}
			cfg := s.HubScale
			cfg.Cluster = cluster
			if err := adding(res.AddHubScale)(RunHubScale(ctx, cfg)); err != nil {
				return err
			}
		}
		return nil
	}},
	{PartMemory, true, func(ctx context.Context, s *Suite, res *Result) error {
		return adding(res.AddMemory)(RunMemory(ctx, s.Memory))
	}},
}

// adding adds a part's figures to the result once its run succeeded.
func adding[R any](add func(R)) func(R, error) error {
	return func(r R, err error) error {
		if err != nil {
			return err
		}
		add(r)
		return nil
	}
}

// Check tells whether the suite can run as it is: the first option that
// cannot be as given is an *OptionError.
func (s Suite) Check() error {
	idle := func() error {
		if s.Routing.Idle < 0 {
			return want("idle", "must be 0 (skip) or positive, like 10s")
		}
		return nil
	}
	checks := []func() error{s.Routing.check, idle, s.Hooks.check, s.Team.check, s.Soak.check,
		s.History.check, s.Worktree.check, s.Memory.check, s.HubScale.check}
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	if !slices.Contains([]string{ScaleOneHub, ScaleThreeHubs, ScaleBothHubs}, s.ScaleHubs) {
		return want("scale hubs", "is %s, %s or %s, not %q", ScaleOneHub, ScaleThreeHubs, ScaleBothHubs, s.ScaleHubs)
	}
	if s.Only != "" && !slices.ContainsFunc(suiteParts, func(p suitePart) bool { return p.name == s.Only }) {
		names := make([]string, len(suiteParts))
		for i, p := range suiteParts {
			names[i] = p.name
		}
		last := len(names) - 1
		return want("only", "is %s or %s, not %q", strings.Join(names[:last], ", "), names[last], s.Only)
	}
	return nil
}

// Run checks the suite, then runs its parts that Only asks for, one after
// the other, and hands back their figures. A part that fails ends it; the
// team, left out when tmux or bash is missing, ends it only when Only asked
// for it.
func (s Suite) Run(ctx context.Context) (*Result, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	s.share()
	res := &Result{}
	for _, p := range suiteParts {
		if s.Only != p.name && (s.Only != "" || p.askedFor) {
			continue
		}
		if err := p.run(ctx, &s, res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// share gives every part the suite's binary, folder and progress writer,
// and the configurations a zero that means none.
func (s *Suite) share() {
	if s.Progress == nil {
		s.Progress = io.Discard
	}
	b, d, p := s.Binary, s.Dir, s.Progress
	s.Routing.Binary, s.Routing.Dir, s.Routing.Progress = b, d, p
	s.Hooks.Binary, s.Hooks.Dir, s.Hooks.Progress = b, d, p
	s.Team.Binary, s.Team.Dir, s.Team.Progress = b, d, p
	s.Rest.Binary, s.Rest.Dir, s.Rest.Progress = b, d, p
	s.History.Binary, s.History.Dir, s.History.Progress = b, d, p
	s.Soak.Binary, s.Soak.Dir, s.Soak.Progress = b, d, p
	s.Worktree.Binary, s.Worktree.Dir, s.Worktree.Progress = b, d, p
	s.Hub.Binary, s.Hub.Dir, s.Hub.Progress = b, d, p
	s.Memory.Binary, s.Memory.Dir, s.Memory.Progress = b, d, p
	s.HubScale.Binary, s.HubScale.Dir, s.HubScale.Progress = b, d, p
	s.Rest.Agents, s.Rest.Idle = s.Team.Agents, s.Team.Idle
	// A configuration's zero is its default, and a negative number none.
	if s.Routing.Idle == 0 {
		s.Routing.Idle = -1
	}
	if s.History.InboxFiles == 0 {
		s.History.InboxFiles = -1
	}
	if s.Soak.Kills == 0 {
		s.Soak.Kills = -1
	}
}
