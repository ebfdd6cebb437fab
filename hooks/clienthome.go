package hooks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// A client home made for an agent (CODEX_HOME, GEMINI_CLI_HOME) starts from
// the user's own: their files are linked into it, or copied where the
// client would write to them on the agent's behalf, and never changed.

// agentHomeMark is a file in every home made for an agent, so that a home
// inherited by a spawned agent's command is not taken for the user's.
const agentHomeMark = ".switchboard-agent-home"

func markAgentHome(dir string) error {
	return writeFile(filepath.Join(dir, agentHomeMark), []byte("made by switchboard for one agent, from the user's own home\n"))
}

// isAgentHome reports whether dir is a client home made for an agent.
func isAgentHome(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, agentHomeMark))
	return err == nil
}

// linkEntries links every entry of the folder from whose name keep accepts
// into the folder to, so that a client started with to as its home finds
// the user's login, history and settings where it looks. What was there
// under such a name (a link made before, or a copy the client left when it
// replaced a file by renaming) becomes the link again: the user's file is
// the one that counts. Links to entries the user no longer has go. A
// missing from is an empty one: the user has not run the client yet.
func linkEntries(from, to string, keep func(name string) bool) error {
	entries, err := os.ReadDir(from)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", from, err)
	}
	for _, e := range entries {
		if !keep(e.Name()) {
			continue
		}
		target, link := filepath.Join(from, e.Name()), filepath.Join(to, e.Name())
		if current, err := os.Readlink(link); err == nil && current == target {
			continue
		}
		if err := os.RemoveAll(link); err != nil {
			return fmt.Errorf("link %s: %w", target, err)
		}
		if err := os.Symlink(target, link); err != nil {
			return fmt.Errorf("link %s: %w", target, err)
		}
	}
	return removeDangling(to)
}

// removeDangling removes the links of dir whose target is gone.
func removeDangling(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("read %s: %w", dir, err)
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if e.Type()&fs.ModeSymlink == 0 {
			continue
		}
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			if err := os.Remove(path); err != nil {
				return fmt.Errorf("remove the stale link %s: %w", path, err)
			}
		}
	}
	return nil
}

// copyEntries copies the regular files of from whose name keep accepts into
// to, replacing what an earlier start wrote there: files a client adds to on
// the agent's behalf (Codex's "always allow" rules, Gemini CLI's saved
// approvals), which must not reach the user's own.
func copyEntries(from, to string, keep func(name string) bool) error {
	entries, err := os.ReadDir(from)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", from, err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !keep(e.Name()) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			return fmt.Errorf("copy %s: %w", e.Name(), err)
		}
		if err := writeFile(filepath.Join(to, e.Name()), data); err != nil {
			return err
		}
	}
	return nil
}
