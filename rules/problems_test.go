package rules

import (
	"strings"
	"testing"
)

// A rules file with several mistakes is told all of them at once, each on
// its line, in the order of the file: a person fixes them in one go, not
// one per run of rules check.
func TestEveryMistakeIsToldAtOnce(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string // the lines of the error, in order
	}{
		{"an unknown key and a name of no agent", teamText + "oversight: [developer_agnet]\nintrerupts: [developer_agent]\n", []string{
			`rules.yaml:5: oversight: "developer_agnet" is not an agent of this team: it has no entry in allowed_interactions and no profile; did you mean developer_agent?`,
			`rules.yaml:6: unknown key "intrerupts" (known: allowed_interactions, forbidden_interactions, oversight, interrupts)`,
		}},
		{"two mistakes in one entry, one in another", "allowed_interactions:\n  a:\n    can_sned_to: [b]\n    can_receive_from: [Bad]\n  b:\n    can_send_to: [\"*\"]\nforbidden_interactions:\n  - from: a\n", []string{
			`rules.yaml:3: unknown key "can_sned_to" in the entry of a`,
			`rules.yaml:4: a.can_receive_from: agent name "Bad" is not valid`,
			`rules.yaml:8: forbidden entry has no "to"`,
		}},
		{"a key repeated, and what follows it", "allowed_interactions:\n  a: {}\n  a: {}\noversight: [\"*\"]\n", []string{
			`rules.yaml:3: "a" is repeated in allowed_interactions (first at line 2)`,
			`rules.yaml:4: oversight must name agents; "*" is not allowed here`,
		}},
		// A value written wrong is told once, not again as missing.
		{"an end of a forbidden entry that is a list", "allowed_interactions:\n  a: {}\nforbidden_interactions:\n  - from: a\n    to: [b]\n", []string{
			`rules.yaml:5: to must be a single value`,
		}},
		{"allowed_interactions a list", "allowed_interactions: [a]\n", []string{
			`rules.yaml:1: allowed_interactions must be a mapping of keys to values`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newTeam(t, tt.text)
			_, err := LoadTeamFile(ws)
			if err == nil {
				t.Fatal("the file loaded")
			}
			got := strings.Split(strings.ReplaceAll(err.Error(), ws.RulesPath(), "rules.yaml"), "\n")
			if len(got) != len(tt.want) {
				t.Fatalf("told %d mistakes:\n%s\nwant %d:\n%s", len(got), strings.Join(got, "\n"), len(tt.want), strings.Join(tt.want, "\n"))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("mistake %d: %q; want %q", i+1, got[i], tt.want[i])
				}
			}
		})
	}
}
