package workspace

import (
	"fmt"
	"os"
	"path/filepath"

	"switchboard/internal/atomicfile"
)

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
