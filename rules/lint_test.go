package rules

import (
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
