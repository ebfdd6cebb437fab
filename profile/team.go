package profile

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"sort"
	"strings"

	"switchboard/mailbox"
	"switchboard/workspace"
)

// Team returns the profile of every agent the rules name (the operator
// aside), sorted by name: its file's profile, or a shell profile when it has
// none. Profiles of agents the rules do not name are left out and reported.
//
// An agent spawned at run time without a profile of its own takes the
// profile it was spawned from, under its own name; and its parent's kind,
// command and folder where that profile gives none; what spawn gave over
// the profile (model, instructions, environment) comes last.
func Team(ws *workspace.Workspace, names []string) (team []*Profile, unnamed []string, err error) {
	profiles, err := LoadProfiles(ws.Profiles())
	if err != nil {
		return nil, nil, err
	}
	spawned, err := ws.Spawned()
	if err != nil {
		return nil, nil, err
	}
	inRules := make(map[string]bool)
	for _, name := range names {
		if name == mailbox.Operator {
			continue
		}
		inRules[name] = true
		team = append(team, resolveProfile(name, profiles, spawned, 0))
	}
	for name := range profiles {
		if !inRules[name] {
			unnamed = append(unnamed, name)
		}
	}
	sort.Slice(team, func(i, j int) bool { return team[i].Name < team[j].Name })
	sort.Strings(unnamed)
	return team, unnamed, nil
}

// Hosted are the agents this host runs in a team across machines: those
// with a profile in its workspace, and those spawned here. Every other
// agent of the rules runs on another host.
func Hosted(ws *workspace.Workspace) (map[string]bool, error) {
	profiles, err := LoadProfiles(ws.Profiles())
	if err != nil {
		return nil, err
	}
	spawned, err := ws.Spawned()
	if err != nil {
		return nil, err
	}
	hosted := make(map[string]bool, len(profiles)+len(spawned))
	for name := range profiles {
		hosted[name] = true
	}
	for name := range spawned {
		hosted[name] = true
	}
	return hosted, nil
}

// resolveProfile is the profile an agent runs with; depth stops a registry
// whose parents loop.
func resolveProfile(name string, profiles map[string]*Profile, spawned map[string]workspace.Spawned, depth int) *Profile {
	if p, ok := profiles[name]; ok {
		return p
	}
	s, ok := spawned[name]
	if !ok || depth > 32 {
		return ShellProfile(name)
	}
	base, ok := profiles[s.Profile]
	if !ok {
		base = ShellProfile(s.Profile)
	}
	p := *base
	p.Name, p.DisplayName = name, DisplayName(name)
	if s.Parent != "" && s.Parent != mailbox.Operator {
		parent := resolveProfile(s.Parent, profiles, spawned, depth+1)
		if !p.kindSet && len(p.Command) == 0 {
			p.Kind, p.Command = parent.Kind, parent.Command
		}
		if p.Cwd == "" {
			p.Cwd = parent.Cwd
		}
	}
	if s.Worktree {
		p.Worktree = true
	}
	if s.Model != "" {
		p.Model = s.Model
	}
	if s.System != "" {
		p.SystemInstructions = strings.TrimSpace(p.SystemInstructions + "\n\n" + s.System)
	}
	if len(s.Env) > 0 {
		p.Env = maps.Clone(p.Env)
		if p.Env == nil {
			p.Env = make(map[string]string, len(s.Env))
		}
		maps.Copy(p.Env, s.Env)
	}
	return &p
}

// Launch is what actually runs in an agent's pane.
type Launch struct {
	Kind    string
	Command []string
	// Env is added to the pane's environment, over the profile's.
	Env map[string]string
	// Note says why the launch differs from the profile, for the pane to show.
	Note string
	// Resume is the conversation (the client's session id) the client goes
	// on with, where its kind can; "" starts a new one.
	Resume string
}

// Launch decides what to run for an expanded profile: its command when its
// program is installed, else the user's shell as that agent (kind shell).
func (p *Profile) Launch(lookPath func(string) (string, error)) Launch {
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	shell := UserShell()
	if len(p.Command) == 0 {
		return Launch{Kind: KindShell, Command: []string{shell}}
	}
	if _, err := lookPath(p.Command[0]); err != nil {
		return Launch{
			Kind:    KindShell,
			Command: []string{shell},
			Note:    fmt.Sprintf("%s is not installed, so %s runs a shell: in its pane you can act as this agent", p.Command[0], p.Name),
		}
	}
	return Launch{Kind: p.Kind, Command: p.Command}
}

// UserShell is the user's login shell, or /bin/sh.
func UserShell() string {
	if sh := os.Getenv("SHELL"); sh != "" {
		if _, err := exec.LookPath(sh); err == nil {
			return sh
		}
	}
	return "/bin/sh"
}
