package master

import (
	"strings"
	"testing"

	"switchboard/lifecycle"
	"switchboard/mailbox"
	"switchboard/workspace"
)

// A cancel notice is vouched for in the log when it comes from one who may
// interrupt its recipient, cancel's or written by hand (the same right); a
// field naming another, one from one who may not, or a title alone is not.
func TestTheLogVouchesForACancelFromOneWhoMayInterruptOnly(t *testing.T) {
	h := newHarness(t)
	h.start(Options{})
	if _, err := lifecycle.Cancel(workspace.New(h.root), "master_agent", "developer_agent", "wrong branch"); err != nil {
		t.Fatal(err)
	}
	handWritten := func(from, by string) *mailbox.Message {
		m := &mailbox.Message{To: []string{"developer_agent"}, Title: "[CANCELLED] by " + by + ": stop", Type: mailbox.TypeInterrupt}
		m.SetCancel(mailbox.Cancel{By: by, Reason: "stop"})
		return m
	}
	byHand := post(t, h, "master_agent", handWritten("master_agent", "master_agent"))
	posted := map[string]*mailbox.Message{
		"a field naming another than its sender": post(t, h, "master_agent", handWritten("master_agent", "tester_agent")),
		"from one who may not interrupt":         post(t, h, "tester_agent", handWritten("tester_agent", "tester_agent")),
		"a title alone": post(t, h, "master_agent", &mailbox.Message{To: []string{"developer_agent"},
			Title: "[CANCELLED] by master_agent: stop", Type: mailbox.TypeInterrupt}),
	}
	h.waitInbox("developer_agent", 5)
	vouched, notes := 0, map[string][]string{}
	for _, rec := range h.records() {
		if c, ok := rec.CancelNotice(); ok {
			vouched++
			if c.By != "master_agent" || c.Reason != "wrong branch" && rec.Message.ID != byHand.ID {
				t.Errorf("the cancel vouched for says %+v; want master_agent's, with its reason", c)
			}
		}
		for what, m := range posted {
			if rec.Message.ID == m.ID {
				notes[what] = rec.Notes
			}
		}
	}
	if vouched != 2 {
		t.Errorf("%d records vouch for a cancel; want cancel's and the overseer's by hand", vouched)
	}
	for what, want := range map[string]string{
		"a field naming another than its sender": "its cancel field is not one cancel writes",
		"from one who may not interrupt":         "tester_agent may not interrupt developer_agent",
		"a title alone":                          "",
	} {
		got := strings.Join(notes[what], "; ")
		if want != "" && !strings.Contains(got, "not a cancel notice: "+want) || want == "" && strings.Contains(got, "cancel") {
			t.Errorf("%s: the log notes %q; want %q", what, got, want)
		}
	}
}
