package master

import (
	"testing"
	"time"

	"switchboard/bulletin"
	"switchboard/conversation"
	"switchboard/mailbox"
	"switchboard/workspace"
)

func TestBulletinFollowsAgentsStateAndMail(t *testing.T) {
	h := newHarness(t)
	h.start(Options{PaneTick: 20 * time.Millisecond})
	post(t, h, "developer_agent", &mailbox.Message{To: []string{"reviewer_agent"}, Title: "Review the login change", Priority: mailbox.PriorityUrgent})
	if err := conversation.Of(h.store).SetState("reviewer_agent", conversation.State{State: conversation.Busy, Source: conversation.SourceHook, Since: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := conversation.Of(h.store).SetState("tester_agent", conversation.State{State: conversation.Exited, Source: conversation.SourceHook, Since: time.Now()}); err != nil {
		t.Fatal(err)
	}
	var b *bulletin.Bulletin
	h.waitFor("the bulletin to show the reviewer busy with one urgent message", func() bool {
		b, _ = bulletin.Of(workspace.New(h.root)).Read()
		return b.Agents["reviewer_agent"] == bulletin.AgentSummary{State: conversation.Busy, Unread: 1, Urgent: 1}
	})
	if _, ok := b.Agents[mailbox.Operator]; ok {
		t.Errorf("bulletin agents %v list the operator, who is not an agent of the team", b.Agents)
	}
	if want := []string{"reviewer_agent"}; len(b.ActiveAgents) != 1 || b.ActiveAgents[0] != want[0] {
		t.Errorf("active agents = %v; want %v (the exited tester and the agents never started are not active)", b.ActiveAgents, want)
	}

	// Reading the message is seen on the next look.
	entries, err := h.store.List("reviewer_agent", mailbox.Unread)
	if err != nil || len(entries) != 1 {
		t.Fatalf("unread = %v, %v", entries, err)
	}
	if _, err := h.store.MarkRead("reviewer_agent", entries[0]); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the bulletin to show the message read", func() bool {
		b, _ = bulletin.Of(workspace.New(h.root)).Read()
		return b.Agents["reviewer_agent"].Unread == 0
	})
}
