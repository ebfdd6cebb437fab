package agents

import (
	"fmt"
	"time"

	"switchboard/mailbox"
	"switchboard/workspace"
)

// CancelTitle is the start of the notice a cancelled agent gets.
const CancelTitle = "[CANCELLED]"

// Cancel stops an agent's work and that of every agent spawned under it,
// leaves first: each gets an interrupt from by, which the master delivers
// with ESC to its pane and "[CANCELLED] by <by>: <reason>", and each spawned
// one is marked cancelled in the registry, which ends its parent's wait.
// It returns the agents cancelled, in order. The caller checks by's right
// to (rules.Rules.MayInterruptAgent).
func Cancel(ws *workspace.Workspace, by, agent, reason string) ([]string, error) {
	spawned, err := ws.Spawned()
	if err != nil {
		return nil, err
	}
	order := append(Descendants(spawned, agent), agent)
	now := time.Now().UTC()
	err = ws.UpdateSpawned(func(all map[string]workspace.Spawned) error {
		for _, name := range order {
			if s, ok := all[name]; ok {
				s.Cancelled = &workspace.Cancellation{By: by, Reason: reason, At: now}
				all[name] = s
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	title := fmt.Sprintf("%s by %s", CancelTitle, by)
	if reason != "" {
		title += ": " + reason
	}
	for i, name := range order {
		content := fmt.Sprintf("%s cancelled your work: %s\nStop what you are doing; do not start anything new.", by, orNoReason(reason))
		if name != agent {
			content += fmt.Sprintf("\nYou were cancelled with %s, which you work under.", agent)
		}
		msg := &mailbox.Message{
			From: by, To: []string{name}, Title: mailbox.ClipTitle(title), Content: content,
			Type: mailbox.TypeInterrupt, Priority: mailbox.PriorityUrgent,
		}
		msg.Normalize(now.Add(time.Duration(i) * time.Microsecond)) // leaves first, in the outbox's order
		if err := msg.Validate(); err != nil {
			return order[:i], err
		}
		if _, err := ws.Store.Post(by, msg); err != nil {
			return order[:i], fmt.Errorf("cancel %s: %w", name, err)
		}
	}
	return order, nil
}

func orNoReason(reason string) string {
	if reason == "" {
		return "no reason given"
	}
	return reason
}
