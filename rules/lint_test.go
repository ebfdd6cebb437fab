package rules

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestWarningsCatchTheSeedsOneSidedAllow(t *testing.T) {
	seed := `allowed_interactions:
  developer_agent:
    can_send_to: [master_agent, reviewer_agent, tester_agent]
    can_receive_from: [master_agent, reviewer_agent]
  tester_agent:
    can_send_to: [master_agent, developer_agent]
    can_receive_from: [master_agent, developer_agent]
  master_agent: {can_send_to: ["*"], can_receive_from: ["*"]}
  reviewer_agent: {can_send_to: [developer_agent], can_receive_from: [developer_agent]}
`
	r, err := Parse("seed.yaml", []byte(seed))
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Join(r.Warnings(), "\n")
	if !strings.Contains(w, "seed.yaml:6: tester_agent may send to developer_agent, but developer_agent does not accept messages from tester_agent") {
		t.Errorf("warnings:\n%s\nwant the tester → developer one-sided allow", w)
	}
}

func TestWarnings(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"both sides agree", "allowed_interactions:\n  a: {can_send_to: [b], can_receive_from: [b]}\n  b: {can_send_to: [a], can_receive_from: [a]}\n", nil},
		{"wildcards agree with anything", "allowed_interactions:\n  a: {can_send_to: [\"*\"], can_receive_from: [\"*\"]}\n  b: {can_send_to: [a], can_receive_from: [a]}\n", nil},
		{"a send nobody accepts", "allowed_interactions:\n  a:\n    can_send_to: [b]\n  b: {}\n", []string{
			"w.yaml:3: a may send to b, but b does not accept messages from a: nothing can pass",
		}},
		{"an accept nobody sends", "allowed_interactions:\n  a: {}\n  b:\n    can_receive_from: [a]\n", []string{
			"w.yaml:4: b accepts messages from a, but a may not send to b: nothing can pass",
		}},
		{"a forbidden pair is meant to be closed", "allowed_interactions:\n  a: {can_send_to: [b]}\n  b: {}\nforbidden_interactions:\n  - {from: a, to: b, reason: no}\n", nil},
		{"a peer without an entry", "allowed_interactions:\n  a: {can_send_to: [\"*\"], can_receive_from: [\"*\"]}\noversight: [ghost]\n", []string{
			"w.yaml: ghost is named but has no entry in allowed_interactions, so it can neither send nor receive",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Parse("w.yaml", []byte(tt.text))
			if err != nil {
				t.Fatal(err)
			}
			got := r.Warnings()
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("Warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestTheShippedFixSilencesTheSeedsWarning(t *testing.T) {
	r, err := Load(filepath.Join("..", "profile", "defaultteam", FileName))
	if err != nil {
		t.Fatal(err)
	}
	if w := r.Warnings(); len(w) != 0 {
		t.Errorf("the shipped default team has warnings:\n%s", strings.Join(w, "\n"))
	}
	if d := r.Decide("tester_agent", "developer_agent"); !d.Allowed {
		t.Errorf("the tester still cannot report to the developer: %s", d.Reason)
	}
}

// A spawned agent is matched by its profile's entry: it is no agent the
// file forgot.
func TestWarningsLeaveSpawnedAgentsAlone(t *testing.T) {
	r, err := Load(filepath.Join("..", "profile", "defaultteam", FileName))
	if err != nil {
		t.Fatal(err)
	}
	r = r.WithSpawned(map[string]Spawned{"reviewer_agent-1": {Profile: "reviewer_agent", Parent: "developer_agent"}})
	if w := r.Warnings(); len(w) != 0 {
		t.Errorf("a spawned helper gave warnings:\n%s", strings.Join(w, "\n"))
	}
}
