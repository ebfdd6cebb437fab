package master

import "testing"

// TestARulesChangeMarkedDuringAReloadIsKept: the loop takes the outboxes
// again after a reload; a change of the rules file marked while it
// reloaded (the file written again, or its wait to stand still run out)
// is still there on the next turn, and the loop is woken for it.
func TestARulesChangeMarkedDuringAReloadIsKept(t *testing.T) {
	q := newWorkQueue()
	q.markRules()
	<-q.ready
	if _, rules, _ := q.take(); !rules {
		t.Fatal("a rules change marked was not taken")
	}
	// The reload runs; meanwhile an outbox and the rules are marked again.
	q.mark("developer_agent")
	q.markRules()
	if dirty, _ := q.takeOutboxes(); !dirty["developer_agent"] {
		t.Errorf("the outbox marked during the reload was not taken: %v", dirty)
	}
	select {
	case <-q.ready:
	default:
		t.Fatal("the loop is not woken for the rules change marked during the reload")
	}
	if _, rules, _ := q.take(); !rules {
		t.Error("the rules change marked during the reload was lost")
	}
}
