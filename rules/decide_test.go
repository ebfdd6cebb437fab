package rules

import (
	"path/filepath"
	"strings"
	"testing"
)

func defaultTeam(t *testing.T) *Rules {
	t.Helper()
	r, err := Load(filepath.Join("..", FileName))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestDecideOnTheDefaultTeam(t *testing.T) {
	r := defaultTeam(t)
	tests := []struct {
		from, to string
		allowed  bool
		reason   string
	}{
		{"developer_agent", "reviewer_agent", true, ""},
		{"tester_agent", "developer_agent", true, ""},
		{"master_agent", "tester_agent", true, ""},
		{"tester_agent", "master_agent", true, ""},
		{"tester_agent", "reviewer_agent", false, "Should go through developer first"},
		{"reviewer_agent", "tester_agent", false, "reviewer_agent is not allowed to send to tester_agent (add tester_agent to reviewer_agent's can_send_to)"},
		{"operator", "tester_agent", true, ""},
		{"reviewer_agent", "operator", true, ""},
	}
	for _, tt := range tests {
		d := r.Decide(tt.from, tt.to)
		if d.Allowed != tt.allowed || d.Reason != tt.reason {
			t.Errorf("Decide(%s, %s) = %v %q; want %v %q", tt.from, tt.to, d.Allowed, d.Reason, tt.allowed, tt.reason)
		}
		for _, because := range d.Because {
			if tt.from != "operator" && tt.to != "operator" && !strings.Contains(because, FileName) {
				t.Errorf("Decide(%s, %s) explains with %q, not a line of the file", tt.from, tt.to, because)
			}
		}
	}
	if d := r.Decide("tester_agent", "reviewer_agent"); len(d.Because) != 1 || !strings.Contains(d.Because[0], FileName+":") {
		t.Errorf("a forbidden decision should name its line: %v", d.Because)
	}
}

func TestDecideNamesTheMissingReceive(t *testing.T) {
	r, err := Parse("r.yaml", []byte("allowed_interactions:\n  a:\n    can_send_to: [b]\n  b:\n    can_receive_from: [c]\n"))
	if err != nil {
		t.Fatal(err)
	}
	d := r.Decide("a", "b")
	if d.Allowed || !strings.Contains(d.Reason, "b does not accept messages from a (add a to b's can_receive_from)") {
		t.Errorf("Decide = %+v", d)
	}
}

func TestWildcardsAndTheOperator(t *testing.T) {
	r, err := Parse("r.yaml", []byte(`allowed_interactions:
  a: {can_send_to: ["*"], can_receive_from: ["*"]}
  b: {can_send_to: ["*"], can_receive_from: ["*"]}
  c: {can_send_to: ["*"], can_receive_from: ["*"]}
forbidden_interactions:
  - {from: "*", to: c, reason: "c is heads-down"}
`))
	if err != nil {
		t.Fatal(err)
	}
	if d := r.Decide("a", "c"); d.Allowed || d.Reason != "c is heads-down" {
		t.Errorf("a → c = %+v; a forbidden from * must hold", d)
	}
	if d := r.Decide("operator", "c"); d.Allowed {
		t.Errorf("operator → c allowed; a forbidden entry overrides the operator too")
	}
	if got := r.Recipients("a", []string{"*"}); strings.Join(got, ",") != "b,c" {
		t.Errorf("Recipients(a, *) = %v; want b, c (not a, not the operator)", got)
	}
	named, err := Parse("r.yaml", []byte("allowed_interactions:\n  a: {can_send_to: [b]}\n  b: {can_receive_from: [a]}\n  operator: {can_send_to: [a]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d := named.Decide("operator", "b"); d.Allowed {
		t.Errorf("operator → b allowed although the rules name the operator and do not allow it")
	}
	if named.IsOverseer("operator") {
		t.Errorf("the operator oversees although the rules name it")
	}
}

func TestOversightAndInterrupts(t *testing.T) {
	r := defaultTeam(t)
	if !r.IsOverseer("master_agent") || r.IsOverseer("developer_agent") || !r.IsOverseer("operator") {
		t.Errorf("IsOverseer wrong on the default team")
	}
	if !r.MayInterrupt("master_agent") || r.MayInterrupt("tester_agent") || !r.MayInterrupt("operator") {
		t.Errorf("MayInterrupt wrong on the default team")
	}
	defaulted, _ := Parse("r.yaml", []byte("allowed_interactions:\n  a: {}\n  b: {}\noversight: [a]\n"))
	if !defaulted.MayInterrupt("a") || defaulted.MayInterrupt("b") {
		t.Errorf("without an interrupts list, the overseers should interrupt")
	}
	none, _ := Parse("r.yaml", []byte("allowed_interactions:\n  a: {}\noversight: [a]\ninterrupts: []\n"))
	if none.MayInterrupt("a") || !none.MayInterrupt("operator") {
		t.Errorf("an empty interrupts list leaves only the operator")
	}
}
