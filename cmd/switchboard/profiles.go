package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"switchboard/internal/safetext"
	"switchboard/mailbox"
	"switchboard/profile"
)

// profileRow is one line of `switchboard profiles`, and its JSON form.
type profileRow struct {
	Name        string   `json:"name"`
	Kind        string   `json:"kind"`
	Command     []string `json:"command"`
	Model       string   `json:"model,omitempty"`
	Description string   `json:"description,omitempty"`
	Path        string   `json:"path,omitempty"` // empty: an agent of the rules without a file, run as a shell
}

func newProfilesCmd(io *streams, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "profiles",
		Short: "The profiles agents are started from: name, kind, command, model, description",
		Long: `List the profiles of the workspace, agents/<name>.yaml, and the agents of the
rules that have none (they run a shell). Any of them can be given to
switchboard spawn --profile.`,
		Example: `  switchboard profiles
  switchboard profiles --json`,
		Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runProfiles(io, g)
		},
	}
}

func runProfiles(io *streams, g *globals) error {
	ws, err := openWorkspace(g)
	if err != nil {
		return err
	}
	profiles, err := profile.LoadProfiles(ws.folder.Profiles())
	if err != nil {
		return err
	}
	for _, agent := range ws.rules.Agents() {
		if _, ok := profiles[agent]; !ok && agent != mailbox.Operator && !ws.rules.IsSpawned(agent) {
			profiles[agent] = profile.ShellProfile(agent)
		}
	}
	rows := make([]profileRow, 0, len(profiles))
	for _, name := range slices.Sorted(maps.Keys(profiles)) {
		p := profiles[name]
		rows = append(rows, profileRow{Name: name, Kind: p.Kind, Command: p.Command, Model: p.Model, Description: p.Description, Path: p.Path})
	}
	if g.json {
		return writeJSON(io.out, rows)
	}
	tw := io.table("NAME", "KIND", "COMMAND", "MODEL", "DESCRIPTION")
	for _, r := range rows {
		desc := r.Description
		if r.Path == "" {
			desc = "(no profile file: a shell)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Name, r.Kind, safetext.Line(strings.Join(r.Command, " ")), orDash(r.Model), safetext.Line(firstLine(desc)))
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// firstLine is the first line of a text.
func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
