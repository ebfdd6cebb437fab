package desk

import (
	"fmt"
	"slices"
	"time"

	"switchboard/mailbox"
	"switchboard/rules"
)

// ReportAttempt tells the overseers (the operator when the rules r name
// none) that agent tried what it may not, as tried says ("tried to act as
// X"), with detail as the message's content. The message goes out under
// the agent's own name, through its outbox: the master logs it like any
// other, and the rules decide whether it reaches them. The refusal stands
// whether or not the report goes out.
func ReportAttempt(store *mailbox.Store, r *rules.Rules, agent, tried, detail string) {
	var to []string
	if r != nil {
		to = slices.DeleteFunc(r.Overseers(), func(n string) bool { return n == agent })
	}
	if len(to) == 0 {
		to = []string{mailbox.Operator}
	}
	msg := &mailbox.Message{
		From:     agent,
		To:       to,
		Title:    mailbox.ClipTitle(fmt.Sprintf("REFUSED: %s %s", agent, tried)),
		Type:     mailbox.TypeStatus,
		Priority: mailbox.PriorityNormal,
		Content:  detail,
	}
	msg.Normalize(time.Now())
	_, _ = store.Post(agent, msg)
}
