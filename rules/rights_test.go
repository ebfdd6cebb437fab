package rules

import (
	"errors"
	"testing"

	"switchboard/mailbox"
)

func TestRightsOfParentsAndOverseers(t *testing.T) {
	r := defaultTeam(t).WithSpawned(map[string]Spawned{
		"helper":    {Profile: "reviewer_agent", Parent: "developer_agent"},
		"subhelper": {Profile: "reviewer_agent", Parent: "helper"},
	})
	if !r.MayClose("developer_agent", "subhelper") || !r.MayClose("master_agent", "helper") || r.MayClose("tester_agent", "helper") {
		t.Error("close: want ancestors and overseers, no one else")
	}
	if err := r.MaySpawn("developer_agent", "master_agent", "developer_agent"); !errors.Is(err, ErrPrivilegedProfile) {
		t.Errorf("a developer spawning an overseer's profile = %v; want ErrPrivilegedProfile", err)
	}
	if err := r.MaySpawn("developer_agent", "reviewer_agent", "tester_agent"); !errors.Is(err, ErrOtherParent) {
		t.Errorf("a developer spawning for the tester = %v; want ErrOtherParent", err)
	}
	if err := r.MaySpawn("master_agent", "reviewer_agent", "tester_agent"); err != nil {
		t.Errorf("an overseer spawning for the tester = %v; want allowed", err)
	}
	rec := &mailbox.Record{Message: &mailbox.Message{From: "developer_agent", To: []string{"reviewer_agent"}}, Delivered: []string{"reviewer_agent"}}
	if !r.MayRead("reviewer_agent", rec) || !r.MayRead("master_agent", rec) || r.MayRead("tester_agent", rec) {
		t.Error("read: want the sender, the recipients and the overseers")
	}
	if r.MayChangeBulletin("developer_agent") || !r.MayChangeBulletin("master_agent") {
		t.Error("bulletin: want the overseers alone")
	}
}
