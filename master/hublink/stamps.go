package hublink

import (
	"crypto/sha256"
	"fmt"
	"os"

	"switchboard/workspace"
)

// stampOf is a fingerprint of the files and folders at paths, by name,
// size and time of change, without reading them: what the link reads again
// only when it changed. A folder counts its entries too.
func stampOf(paths ...string) string {
	h := sha256.New()
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			fmt.Fprintf(h, "%s missing\n", p)
			continue
		}
		fmt.Fprintf(h, "%s %d %d\n", p, fi.Size(), fi.ModTime().UnixNano())
		if !fi.IsDir() {
			continue
		}
		entries, _ := os.ReadDir(p)
		for _, e := range entries {
			if info, err := e.Info(); err == nil {
				fmt.Fprintf(h, " %s %d %d\n", e.Name(), info.Size(), info.ModTime().UnixNano())
			}
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// hostedStamp fingerprints what says which agents this host runs: its
// profiles and the registry of the agents spawned here.
func hostedStamp(ws *workspace.Workspace) string {
	return stampOf(ws.Profiles(), ws.SpawnedFile())
}

// rulesStamp fingerprints the rules file and what the judging of other
// hosts' helpers reads besides.
func rulesStamp(ws *workspace.Workspace) string {
	return stampOf(ws.RulesPath(), ws.Profiles(), ws.SpawnedFile())
}
