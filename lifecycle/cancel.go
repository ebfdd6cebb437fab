package lifecycle

import (
	"fmt"
	"maps"
	"time"

	"switchboard/mailbox"
	"switchboard/workspace"
)

// CancelTitle is the start of the title of the notice a cancelled agent
// gets, for the people and the model who read it; its cancel field
// (mailbox.Cancel) is what makes it a cancel notice.
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
	// In a team across machines, the agents spawned on other hosts are
	// cancelled too; their own masters mark them (see master's hub link).
	elsewhere, err := ws.HubSpawned()
	if err != nil {
		return nil, err
	}
	tree := maps.Clone(elsewhere)
	maps.Copy(tree, spawned)
	order := append(Descendants(tree, agent), agent)
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
		c := mailbox.Cancel{By: by, Reason: reason}
		if name != agent {
			c.Under = agent
		}
		msg.SetCancel(c)
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

// MarkCancelled marks an agent spawned here cancelled, as Cancel does, for a
// cancel that came from another host; false when it was not spawned here
// or is marked already.
func MarkCancelled(ws *workspace.Workspace, agent string, c workspace.Cancellation) (bool, error) {
	marked := false
	err := ws.UpdateSpawned(func(all map[string]workspace.Spawned) error {
		if s, ok := all[agent]; ok && s.Cancelled == nil {
			s.Cancelled = &c
			all[agent] = s
			marked = true
		}
		return nil
	})
	return marked, err
}
