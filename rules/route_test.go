package rules

import (
	"slices"
	"testing"
)

func TestRouteSplitsABroadcastAndNamesStrangers(t *testing.T) {
	r := defaultTeam(t)
	route := r.Route("tester_agent", []string{"*"})
	if !slices.Equal(route.Delivered, []string{"developer_agent", "master_agent"}) || len(route.Blocked) != 1 ||
		route.Blocked[0].To != "reviewer_agent" || route.Blocked[0].Reason != "Should go through developer first" {
		t.Errorf("broadcast from the tester = %+v; want the developer and master, the reviewer blocked with its reason", route)
	}
	route = r.Route("developer_agent", []string{"reviewer_agent", "reviewer_agnet"})
	if !slices.Equal(route.Unknown, []string{"reviewer_agnet"}) || !slices.Equal(route.Delivered, []string{"reviewer_agent"}) {
		t.Errorf("a typo among the recipients = %+v; want it unknown and the rest decided", route)
	}
}
