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

// TestAHelperCarriesNoForbiddenMessage: the tester may not write to the
// reviewer. A helper it spawns from the developer's profile, which may,
// keeps the tester's bar; and the tester cannot reach the reviewer through
// a helper the reviewer spawned either.
func TestAHelperCarriesNoForbiddenMessage(t *testing.T) {
	r := parseRules(t, `allowed_interactions:
  developer:
    can_send_to: [reviewer, tester]
    can_receive_from: [reviewer, tester]
  reviewer:
    can_send_to: [developer]
    can_receive_from: [developer]
  tester:
    can_send_to: [developer]
    can_receive_from: [developer]
forbidden_interactions:
  - from: tester
    to: reviewer
    reason: "Should go through developer first"
`).WithSpawned(map[string]Spawned{
		"developer-1": {Profile: "developer", Parent: "tester"},
		"developer-2": {Profile: "developer", Parent: "developer-1"},
		"developer-3": {Profile: "developer", Parent: "reviewer"},
	})
	for _, c := range []struct {
		from, to string
		allowed  bool
	}{
		{"developer-1", "reviewer", false}, // the tester's helper
		{"developer-2", "reviewer", false}, // and its helper in turn
		{"tester", "developer-3", false},   // the reviewer's helper
		{"developer-1", "tester", true},    // the helper still answers its parent
		{"tester", "developer-1", true},
		{"developer-1", "developer-3", false}, // tester's line to reviewer's line
		{"developer", "reviewer", true},       // the real developer is not touched
	} {
		d := r.Decide(c.from, c.to)
		if d.Allowed != c.allowed {
			t.Errorf("%s → %s: allowed %v (%s); want %v", c.from, c.to, d.Allowed, d.Reason, c.allowed)
		}
	}
	if d := r.Decide("developer-1", "reviewer"); d.Reason != "Should go through developer first (developer-1 was spawned under tester)" {
		t.Errorf("the reason says %q; want the entry's, and whose helper it is", d.Reason)
	}
}
