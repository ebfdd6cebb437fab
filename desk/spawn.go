package desk

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"switchboard/lifecycle"
	"switchboard/mailbox"
	"switchboard/profile"
	"switchboard/rules"
)

// SpawnRequest is one more agent, started at run time in the team's tmux
// session.
type SpawnRequest struct {
	Profile string // agents/<Profile>.yaml, or an agent of the rules
	Name    string // "" is the first free of <Profile>-1, -2, ...
	Parent  string // "" is the desk's agent
	Task    string // its first message, asking for a response
	Model   string
	System  string
	Env     map[string]string
	NoMCP   bool // leave switchboard's MCP server out of its client
	// Worktree gives it a git worktree of its own, whatever its profile
	// says (a helper's starts from its parent's branch, when it has one).
	Worktree bool
}

// Spawned is the agent spawn started.
type Spawned struct {
	Name    string `json:"name"`
	Profile string `json:"profile"`
	Parent  string `json:"parent"`
	Pane    string `json:"pane"`
	Kind    string `json:"kind"`
	Task    string `json:"task_id,omitempty"`
	// Note says what the person should know (its program is not
	// installed, say).
	Note string `json:"note,omitempty"`
}

// Errors of Spawn.
var (
	// ErrNoProfile is a profile neither agents/ nor the rules have.
	ErrNoProfile = errors.New("no such profile")
	// ErrPrivileged is a profile whose agents oversee or interrupt the team,
	// spawned by an agent that may not.
	ErrPrivileged = errors.New("its agents oversee or interrupt the team")
	// ErrOtherParent is a spawn for another parent by an agent that may
	// spawn for itself only.
	ErrOtherParent = errors.New("an agent may spawn for itself only")
	// ErrCannotAnswer is a helper the rules would keep from answering its
	// parent: spawned, it would work for nothing, and a wait for it would
	// never end (errors.Is matches a *CannotAnswerError).
	ErrCannotAnswer = errors.New("its answer could not reach its parent")
)

// CannotAnswerError is a helper whose answer the rules would block, with
// the rules' decision.
type CannotAnswerError struct {
	Helper   string
	Decision rules.Decision
}

func (e *CannotAnswerError) Error() string {
	msg := fmt.Sprintf("the answer of %s could not reach %s: the rules block it: %s", e.Helper, e.Decision.To, e.Decision.Reason)
	if len(e.Decision.Because) > 0 {
		msg += " (" + e.Decision.Because[0] + ")"
	}
	return msg
}

func (e *CannotAnswerError) Is(target error) bool { return target == ErrCannotAnswer }

// TaskNotSentError is an agent spawned whose task could not be sent.
type TaskNotSentError struct {
	Spawned Spawned
	Err     error
}

func (e *TaskNotSentError) Error() string {
	return fmt.Sprintf("%s was spawned, but its task was not sent: %v", e.Spawned.Name, e.Err)
}

func (e *TaskNotSentError) Unwrap() error { return e.Err }

// Spawn starts an agent from a profile in the running team, as the rules
// allow the desk's agent, and sends it its task.
func (d *Desk) Spawn(ctx context.Context, r SpawnRequest) (Spawned, error) {
	if err := d.currentRules(); err != nil {
		return Spawned{}, err
	}
	if err := d.checkProfile(r.Profile); err != nil {
		return Spawned{}, err
	}
	parent := r.Parent
	if parent == "" {
		parent = d.agent
	}
	switch err := d.rules.MaySpawn(d.agent, r.Profile, parent); {
	case errors.Is(err, rules.ErrPrivilegedProfile):
		return Spawned{}, fmt.Errorf("%s may not spawn from profile %s: %w, which %s may not", d.agent, r.Profile, ErrPrivileged, d.agent)
	case !d.rules.Knows(parent):
		return Spawned{}, NotAnAgent(d.rules, parent)
	case errors.Is(err, rules.ErrOtherParent):
		return Spawned{}, fmt.Errorf("%s may not spawn for %s: %w", d.agent, parent, ErrOtherParent)
	}
	// Before the team is asked for a pane: a helper the rules keep from its
	// parent would work for nothing. An automatic name is never one the
	// rules name, so the profile decides for it.
	if answer := d.rules.HelperAnswer(r.Name, rules.Spawned{Profile: r.Profile, Parent: parent}); !answer.Allowed {
		return Spawned{}, &CannotAnswerError{Helper: helperCalled(r.Name, r.Profile), Decision: answer}
	}
	var wirer lifecycle.Wirer
	if d.wiring != nil {
		wirer = d.wiring(d.ws, r.NoMCP)
	}
	started, err := lifecycle.Spawn(ctx, lifecycle.SpawnOptions{
		Workspace: d.ws, Name: r.Name, Profile: r.Profile, Parent: parent, Task: r.Task,
		Model: r.Model, System: r.System, Env: r.Env, Worktree: r.Worktree,
		Taken: d.rules.Knows,
		Wirer: wirer,
	})
	if err != nil {
		return Spawned{}, err
	}
	name, seat, note := started.Name, started.Seat, started.Note
	s := Spawned{Name: name, Profile: r.Profile, Parent: parent, Pane: seat.Pane, Kind: seat.Kind, Note: note}
	if r.Task == "" {
		return s, nil
	}
	// The task goes out under the rules that now know the new agent.
	fresh, err := rules.LoadTeam(d.ws)
	if err != nil {
		return s, &TaskNotSentError{Spawned: s, Err: err}
	}
	task := &mailbox.Message{
		To: []string{name}, Title: lifecycle.TaskTitle(r.Task), Content: r.Task,
		Type: mailbox.TypeInstruction, RequiresResponse: true,
	}
	if _, err := New(d.ws, fresh, d.agent).Send(task); err != nil {
		return s, &TaskNotSentError{Spawned: s, Err: err}
	}
	s.Task = task.ID
	return s, nil
}

// checkProfile says whether a profile to spawn from exists.
func (d *Desk) checkProfile(name string) error {
	profiles, err := profile.LoadProfiles(d.ws.Profiles())
	if err != nil {
		return err
	}
	if _, ok := profiles[name]; ok || d.rules.Knows(name) {
		return nil
	}
	return fmt.Errorf("%w %q: give one of agents/ (%s) or an agent of the rules", ErrNoProfile, name, strings.Join(slices.Sorted(maps.Keys(profiles)), ", "))
}

// helperCalled names a helper to be spawned: by its name, or, for one that
// gets a name when it starts, by its profile.
func helperCalled(name, profile string) string {
	if name != "" {
		return name
	}
	return "a helper from profile " + profile
}
