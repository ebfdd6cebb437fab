package rules

import "testing"

func TestClosestFindsTheAgentATypoMeant(t *testing.T) {
	r, err := Parse("rules.yaml", []byte("allowed_interactions:\n  reviewer_agent: {}\n  developer_agent: {}\n  tester_agent: {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for typo, want := range map[string]string{
		"reviewer_agnet":  "reviewer_agent", // swapped letters
		"reviewr_agent":   "reviewer_agent", // a letter left out
		"developer-agent": "developer_agent",
		"tester":          "",
		"operater":        "operator",
		"ghost":           "",
	} {
		got, ok := r.Closest(typo)
		if got != want || ok != (want != "") {
			t.Errorf("Closest(%q) = %q, %v; want %q", typo, got, ok, want)
		}
	}
}
