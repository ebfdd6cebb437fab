package rules

import (
	"slices"
	"testing"

	"switchboard/mailbox"
)

func TestRouteSplitsABroadcastAndNamesStrangers(t *testing.T) {
	r := defaultTeam(t)
	route := r.Route("tester_agent", &mailbox.Message{To: []string{"*"}})
	if !slices.Equal(route.Delivered, []string{"developer_agent", "master_agent"}) || len(route.Blocked) != 1 ||
		route.Blocked[0].To != "reviewer_agent" || route.Blocked[0].Reason != "Should go through developer first" {
		t.Errorf("broadcast from the tester = %+v; want the developer and master, the reviewer blocked with its reason", route)
	}
	route = r.Route("developer_agent", &mailbox.Message{To: []string{"reviewer_agent", "reviewer_agnet"}})
	if !slices.Equal(route.Unknown, []string{"reviewer_agnet"}) || !slices.Equal(route.Delivered, []string{"reviewer_agent"}) {
		t.Errorf("a typo among the recipients = %+v; want it unknown and the rest decided", route)
	}
}

// An interrupt reaches every agent spawned under its sender, as cancel
// needs, however the pair is ruled for mail; `send` and the master must
// agree on it, so it is the route's to say.
func TestRouteLetsAnInterruptReachTheSendersHelpers(t *testing.T) {
	r := defaultTeam(t).WithSpawned(map[string]Spawned{
		"helper":    {Profile: "reviewer_agent", Parent: "tester_agent"},
		"subhelper": {Profile: "reviewer_agent", Parent: "helper"},
	})
	mail := r.Route("tester_agent", &mailbox.Message{To: []string{"subhelper"}})
	if len(mail.Blocked) != 1 {
		t.Fatalf("mail from the tester to a reviewer it spawned = %+v; want blocked, as the forbidden pair says", mail)
	}
	stop := r.Route("tester_agent", &mailbox.Message{To: []string{"subhelper"}, Type: mailbox.TypeInterrupt})
	if !slices.Equal(stop.Delivered, []string{"subhelper"}) || len(stop.Blocked) != 0 {
		t.Errorf("an interrupt from the tester to its helper's helper = %+v; want delivered", stop)
	}
	for _, from := range []string{"developer_agent", "reviewer_agent"} {
		asMail := r.Route(from, &mailbox.Message{To: []string{"subhelper"}})
		asStop := r.Route(from, &mailbox.Message{To: []string{"subhelper"}, Type: mailbox.TypeInterrupt})
		if !slices.Equal(asMail.Delivered, asStop.Delivered) {
			t.Errorf("from %s, no ancestor: an interrupt = %+v, mail = %+v; want the rules to decide both alike", from, asStop, asMail)
		}
	}
}
