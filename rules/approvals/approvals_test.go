package approvals

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestApprovalsMatchRememberAndRevoke(t *testing.T) {
	s := NewStore(filepath.Join(t.TempDir(), "approvals.json"))
	tests := []Approval{
		{Agent: "h1", Tool: "Bash", Rule: "npm test *", Decision: Always, By: "lead"},
		{Agent: "h1", Tool: "Bash", Rule: "rm -rf build", Decision: Never, By: "lead"},
		{Agent: "h1", Tool: "Write", Decision: Never, By: "lead"},
	}
	for _, a := range tests {
		if _, err := s.Remember(a); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		agent, tool, command string
		want                 string
	}{
		{"h1", "Bash", "npm test", Always},
		{"h1", "Bash", "npm test -- --watch", Always},
		{"h1", "Bash", "npm testx", ""},
		{"h1", "Bash", "rm -rf build", Never},
		{"h1", "Bash", "rm -rf build/x", ""},
		{"h1", "Write", "", Never},
		{"h2", "Bash", "npm test", ""},
		{"h1", "run_shell_command", "rm -rf build", Never}, // Gemini CLI's shell
	} {
		a, ok, err := s.Find(c.agent, c.tool, c.command)
		if err != nil || (ok && a.Decision != c.want) || (!ok && c.want != "") {
			t.Errorf("Find(%s, %s, %q) = %+v, %v, %v; want %q", c.agent, c.tool, c.command, a, ok, err, c.want)
		}
	}
	// Remembering the same call again replaces the old answer.
	again, err := s.Remember(Approval{Agent: "h1", Tool: "Bash", Rule: "npm test *", Decision: Never, By: "lead"})
	if err != nil {
		t.Fatal(err)
	}
	all, _ := s.List()
	if len(all) != 3 {
		t.Errorf("%d approvals; want 3, the first replaced", len(all))
	}
	if a, _, _ := s.Find("h1", "Bash", "npm test"); a.Decision != Never {
		t.Errorf("npm test is %s; want never now", a.Decision)
	}
	if _, err := s.Revoke(again.ID[:4], nil); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Find("h1", "Bash", "npm test"); ok {
		t.Error("a revoked approval still answers")
	}
	if _, err := s.Revoke("zzzz", nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("Revoke of an unknown id: %v", err)
	}
}
