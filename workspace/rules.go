package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"switchboard/internal/atomicfile"
	"switchboard/rules"
)

// Rules loads the team's rules together with its spawned agents: what the
// master routes by and every command checks against.
func (w *Workspace) Rules() (*rules.Rules, error) {
	data, err := w.ReadRulesFile()
	if err != nil {
		return nil, err
	}
	return w.RulesFrom(w.RulesPath(), data)
}

// ReadRulesFile reads the rules file as it is now.
func (w *Workspace) ReadRulesFile() ([]byte, error) {
	data, err := os.ReadFile(w.RulesPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, rules.Missing(w.RulesPath(), err)
	}
	if err != nil {
		return nil, fmt.Errorf("read rules: %w", err)
	}
	return data, nil
}

// RulesFile loads the rules file as it is written, without the agents
// spawned at run time: what a check of the file looks at.
func (w *Workspace) RulesFile() (*rules.Rules, error) {
	data, err := w.ReadRulesFile()
	if err != nil {
		return nil, err
	}
	return w.parseRules(w.RulesPath(), data)
}

// parseRules validates the contents of a rules file (path names it in
// errors), every name in it included: each must be an agent of the team,
// by its entry in the file or by its profile in agents/.
func (w *Workspace) parseRules(path string, data []byte) (*rules.Rules, error) {
	r, err := rules.Parse(path, data)
	if err != nil {
		return nil, err
	}
	profiles, err := w.profileNames()
	if err != nil {
		return nil, err
	}
	if err := r.CheckNames(profiles); err != nil {
		return nil, err
	}
	return r, nil
}

// RulesFrom makes the team's rules from the contents of a rules file (path
// names it in errors), the registry of spawned agents, and, in a team across
// machines, the agents other hosts spawned.
func (w *Workspace) RulesFrom(path string, data []byte) (*rules.Rules, error) {
	r, err := w.parseRules(path, data)
	if err != nil {
		return nil, err
	}
	spawned, err := w.Spawned()
	if err != nil {
		return nil, err
	}
	// In a team across machines, the agents other hosts spawned too, as
	// this host's master took them in; never in place of an agent of this
	// host, whose rules no other host changes.
	elsewhere, err := w.HubSpawned()
	if err != nil {
		return nil, err
	}
	for name, s := range elsewhere {
		if _, here := spawned[name]; !here && !w.hasProfile(name) {
			spawned[name] = s
		}
	}
	if len(spawned) == 0 {
		return r, nil
	}
	seen := make(map[string]rules.Spawned, len(spawned))
	for name, s := range spawned {
		seen[name] = rules.Spawned{Profile: s.Profile, Parent: s.Parent}
	}
	return r.WithSpawned(seen), nil
}

// LoadedRulesPath is the copy the master keeps of the rules file it routes
// by: the last version that loaded.
func (w *Workspace) LoadedRulesPath() string {
	return filepath.Join(filepath.Dir(w.Store.LogPath()), "rules.yaml")
}

// KeepLoadedRules records data as the rules file the master routes by.
func (w *Workspace) KeepLoadedRules(data []byte) error {
	if err := os.MkdirAll(filepath.Dir(w.LoadedRulesPath()), 0o700); err != nil {
		return fmt.Errorf("keep the loaded rules: %w", err)
	}
	if err := atomicfile.WriteFile(w.LoadedRulesPath(), data, atomicfile.Options{Durable: w.Store.Durable}); err != nil {
		return fmt.Errorf("keep the loaded rules: %w", err)
	}
	return nil
}

// ReadLoadedRules returns the copy of the rules the master last loaded;
// ok is false when no master has kept one.
func (w *Workspace) ReadLoadedRules() (data []byte, ok bool) {
	data, err := os.ReadFile(w.LoadedRulesPath())
	return data, err == nil
}

// RulesOrLoaded loads the team's rules; when the rules file does not load
// (being edited, or broken), it falls back on the rules the master last
// loaded, and says why in broken. Reading one's mail, the log and the team
// goes on so; what changes them (send, spawn, up) asks for the file
// itself. err is set when neither loads.
func (w *Workspace) RulesOrLoaded() (r *rules.Rules, broken error, err error) {
	r, err = w.Rules()
	var bad *rules.Error
	if err == nil || !errors.As(err, &bad) {
		return r, nil, err
	}
	data, ok := w.ReadLoadedRules()
	if !ok {
		return nil, err, err
	}
	last, lerr := w.RulesFrom(w.LoadedRulesPath(), data)
	if lerr != nil {
		return nil, err, err
	}
	return last, err, nil
}
