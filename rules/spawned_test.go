package rules

import (
	"slices"
	"testing"
)

func TestSpawnedAgentsByRoleAndFamily(t *testing.T) {
	r := parseRules(t, `allowed_interactions:
  lead:
    can_send_to: [reviewer]
    can_receive_from: [reviewer]
  reviewer:
    can_send_to: [lead]
    can_receive_from: [lead]
  helper:
    can_send_to: []
    can_receive_from: []
forbidden_interactions:
  - from: "*"
    to: secret
    reason: "nobody writes to secret"
oversight: [lead]
`).WithSpawned(map[string]Spawned{
		"reviewer-2": {Profile: "reviewer", Parent: "lead"},
		"helper-1":   {Profile: "helper", Parent: "reviewer-2"},
		"secret":     {Profile: "helper", Parent: "lead"},
	})
	cases := []struct {
		from, to string
		allowed  bool
	}{
		{"lead", "reviewer-2", true},      // the role's allow, and family too
		{"reviewer-2", "lead", true},      // as reviewer
		{"helper-1", "reviewer-2", true},  // child to parent, though helper may send to no one
		{"reviewer-2", "helper-1", true},  // parent to child
		{"helper-1", "lead", false},       // a grandparent is not family
		{"lead", "secret", false},         // forbidden beats family
		{"reviewer", "reviewer-2", false}, // reviewer may not send to reviewer
	}
	for _, c := range cases {
		if d := r.Decide(c.from, c.to); d.Allowed != c.allowed {
			t.Errorf("%s → %s: allowed %v (%s, %v); want %v", c.from, c.to, d.Allowed, d.Reason, d.Because, c.allowed)
		}
	}
	if !r.Knows("helper-1") || !slices.Contains(r.Agents(), "reviewer-2") {
		t.Errorf("spawned agents are not part of the team: %v", r.Agents())
	}
	if p, ok := r.Parent("helper-1"); !ok || p != "reviewer-2" {
		t.Errorf("parent of helper-1 = %q, %v", p, ok)
	}
	if got := r.Children("lead"); !slices.Equal(got, []string{"reviewer-2", "secret"}) {
		t.Errorf("children of lead = %v", got)
	}
	if r.IsOverseer("reviewer-2") {
		t.Errorf("reviewer-2 oversees, as a reviewer it must not")
	}
}
