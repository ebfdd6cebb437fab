package rules

import (
	"errors"
	"strings"
	"testing"
)

// A name of no agent in the file is refused with the line it is on and the
// agent it was likely meant to be; entries, profiles, the operator and "*"
// are agents of the team.
func TestCheckNames(t *testing.T) {
	const team = "allowed_interactions:\n  master_agent: {can_send_to: [\"*\"], can_receive_from: [\"*\"]}\n  reviewer_agent: {can_send_to: [master_agent], can_receive_from: [master_agent]}\n  tester_agent: {can_send_to: [master_agent], can_receive_from: [master_agent]}\n"
	tests := []struct {
		name, text string
		profiles   []string
		line       int
		msg        string // "" when the names are all known
	}{
		{"a typo in a forbidden entry's to", team + "forbidden_interactions:\n  - from: tester_agent\n    to: reveiwer_agent\n    reason: through the developer\n", nil,
			7, `forbidden entry to: "reveiwer_agent" is not an agent of this team: it has no entry in allowed_interactions and no profile; did you mean reviewer_agent?`},
		{"a typo in a forbidden entry's from", team + "forbidden_interactions:\n  - {from: testr_agent, to: \"*\"}\n", nil,
			6, `forbidden entry from: "testr_agent" is not an agent of this team: it has no entry in allowed_interactions and no profile; did you mean tester_agent?`},
		{"a typo in oversight", team + "oversight: [mastr_agent]\n", nil,
			5, `oversight: "mastr_agent" is not an agent of this team: it has no entry in allowed_interactions and no profile; did you mean master_agent?`},
		{"a typo in interrupts", team + "interrupts:\n  - master_agent\n  - reviewer_agnet\n", nil,
			7, `interrupts: "reviewer_agnet" is not an agent of this team: it has no entry in allowed_interactions and no profile; did you mean reviewer_agent?`},
		{"a typo in an allow list", "allowed_interactions:\n  a_agent:\n    can_send_to: [b_agnet]\n  b_agent: {}\n", nil,
			3, `a_agent.can_send_to: "b_agnet" is not an agent of this team: it has no entry in allowed_interactions and no profile; did you mean b_agent?`},
		{"a name near nothing", team + "oversight: [ghost]\n", nil,
			5, `oversight: "ghost" is not an agent of this team: it has no entry in allowed_interactions and no profile; correct the name, or give the agent an entry in allowed_interactions (ghost: {} is enough for an agent of another host)`},
		{"a typo near a profile", team + "oversight: [docs_agnet]\n", []string{"docs_agent"},
			5, `did you mean docs_agent?`},
		{"the first of two, by line", team + "oversight: [mastr_agent]\nforbidden_interactions:\n  - {from: ghost, to: tester_agent}\n", nil,
			5, `oversight: "mastr_agent"`},
		{"an agent with a profile and no entry", team + "oversight: [docs_agent]\nforbidden_interactions:\n  - {from: docs_agent, to: tester_agent}\n", []string{"docs_agent"}, 0, ""},
		// In a team across machines this host holds no profile of another
		// host's agent: its entry makes it known.
		{"another host's agent, by its entry", team + "forbidden_interactions:\n  - {from: tester_agent, to: reviewer_agent}\ninterrupts: [reviewer_agent]\n", nil, 0, ""},
		{"the operator and the wildcard", team + "forbidden_interactions:\n  - {from: operator, to: \"*\"}\noversight: [operator]\n", nil, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Parse("rules.yaml", []byte(tt.text))
			if err != nil {
				t.Fatal(err)
			}
			err = r.CheckNames(tt.profiles)
			if tt.msg == "" {
				if err != nil {
					t.Fatalf("CheckNames: %v; want no error", err)
				}
				return
			}
			var bad *Error
			if !errors.As(err, &bad) {
				t.Fatalf("CheckNames: %v; want an *Error at line %d saying %q", err, tt.line, tt.msg)
			}
			if bad.Path != "rules.yaml" || bad.Line != tt.line || !strings.Contains(bad.Msg, tt.msg) {
				t.Errorf("CheckNames: %s:%d: %s\nwant rules.yaml:%d: %s", bad.Path, bad.Line, bad.Msg, tt.line, tt.msg)
			}
		})
	}
}
