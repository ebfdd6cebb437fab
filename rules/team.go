package rules

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"switchboard/workspace"
)

// FileName is the rules file at the root of every workspace.
const FileName = workspace.RulesFileName

// ReadFile reads the rules file at path as it is now; a file that is not
// there is ErrNoRules.
func ReadFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, Missing(path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("read rules: %w", err)
	}
	return data, nil
}

// LoadTeam loads the rules of the team in ws together with its spawned
// agents: what the master routes by and every command checks against.
func LoadTeam(ws *workspace.Workspace) (*Rules, error) {
	data, err := ReadFile(ws.RulesPath())
	if err != nil {
		return nil, err
	}
	return ParseTeam(ws, ws.RulesPath(), data)
}

// LoadTeamFile loads the rules file of ws as it is written, without the
// agents spawned at run time: what a check of the file looks at.
func LoadTeamFile(ws *workspace.Workspace) (*Rules, error) {
	data, err := ReadFile(ws.RulesPath())
	if err != nil {
		return nil, err
	}
	return parseTeamFile(ws, ws.RulesPath(), data)
}

// parseTeamFile validates the contents of a rules file (path names it in
// errors), every name in it included: each must be an agent of the team in
// ws, by its entry in the file or by its profile in agents/.
func parseTeamFile(ws *workspace.Workspace, path string, data []byte) (*Rules, error) {
	r, problems := parse(path, data)
	if r == nil {
		return nil, joinProblems(problems) // not YAML: nothing to look at
	}
	profiles, err := ws.ProfileNames()
	if err != nil {
		return nil, err
	}
	// A name of no agent is told with the file's other mistakes, unless
	// the file has no agents at all: every name would be one.
	if len(r.Allowed) > 0 {
		problems = append(problems, r.unknownNames(profiles)...)
	}
	if len(problems) > 0 {
		return nil, joinProblems(problems)
	}
	return r, nil
}

// ParseTeam makes the rules of the team in ws from the contents of a rules
// file (path names it in errors), the registry of spawned agents, and, in a
// team across machines, the agents other hosts spawned.
func ParseTeam(ws *workspace.Workspace, path string, data []byte) (*Rules, error) {
	r, err := parseTeamFile(ws, path, data)
	if err != nil {
		return nil, err
	}
	spawned, err := ws.Spawned()
	if err != nil {
		return nil, err
	}
	// In a team across machines, the agents other hosts spawned too, as
	// this host's master took them in; never in place of an agent of this
	// host, whose rules no other host changes.
	elsewhere, err := ws.HubSpawned()
	if err != nil {
		return nil, err
	}
	for name, s := range elsewhere {
		if _, here := spawned[name]; !here && !ws.HasProfile(name) {
			spawned[name] = s
		}
	}
	if len(spawned) == 0 {
		return r, nil
	}
	seen := make(map[string]Spawned, len(spawned))
	for name, s := range spawned {
		seen[name] = Spawned{Profile: s.Profile, Parent: s.Parent}
	}
	return r.WithSpawned(seen), nil
}

// LoadTeamOrLastLoaded loads the rules of the team in ws; when the rules
// file does not load (being edited, or broken), it falls back on the rules
// the master last loaded, and says why in broken. Reading one's mail, the
// log and the team goes on so; what changes them (send, spawn, up) asks for
// the file itself. err is set when neither loads.
func LoadTeamOrLastLoaded(ws *workspace.Workspace) (r *Rules, broken error, err error) {
	r, err = LoadTeam(ws)
	var bad *Error
	if err == nil || !errors.As(err, &bad) {
		return r, nil, err
	}
	data, ok := ws.ReadLoadedRules()
	if !ok {
		return nil, err, err
	}
	last, lerr := ParseTeam(ws, ws.LoadedRulesPath(), data)
	if lerr != nil {
		return nil, err, err
	}
	return last, err, nil
}
