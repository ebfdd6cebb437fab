package profile

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// defaultTeam is the rules file and the agent profiles of the default team,
// laid out as in a workspace, under defaultteam/.
//
//go:embed defaultteam/communication_rules.yaml defaultteam/agents/*.yaml
var defaultTeam embed.FS

// defaultTeamFiles are the default team's workspace files: its rules file and
// its profiles, by their paths in a workspace.
func defaultTeamFiles() fs.FS {
	team, err := fs.Sub(defaultTeam, "defaultteam")
	if err != nil {
		panic(err) // the embedded folder is there: it was built in
	}
	return team
}

// ErrWorkspaceExists is returned by WriteDefaultTeam when the folder already
// holds a rules file and force is off.
var ErrWorkspaceExists = errors.New("a workspace already exists here")

// WriteDefaultTeam writes the default team's rules file and profiles into
// dir and returns the paths written. Existing files are replaced only with
// force.
func WriteDefaultTeam(dir string, force bool) ([]string, error) {
	team := defaultTeamFiles()
	var files []string
	err := fs.WalkDir(team, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files = append(files, path)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read embedded team: %w", err)
	}
	if !force {
		for _, f := range files {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				return nil, fmt.Errorf("%w: %s exists", ErrWorkspaceExists, f)
			}
		}
	}
	var written []string
	for _, f := range files {
		data, err := fs.ReadFile(team, f)
		if err != nil {
			return written, fmt.Errorf("read embedded %s: %w", f, err)
		}
		target := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return written, fmt.Errorf("create %s: %w", filepath.Dir(target), err)
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			return written, fmt.Errorf("write %s: %w", target, err)
		}
		written = append(written, target)
	}
	return written, nil
}
