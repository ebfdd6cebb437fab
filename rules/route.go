package rules

import (
	"switchboard/mailbox"
)

// Route is what the rules decide for one message: every recipient its "to"
// names ("*" expanded), each delivered or blocked with the reason, or not
// known to the team at all.
type Route struct {
	Recipients []string
	Unknown    []string
	Delivered  []string
	Blocked    []mailbox.Block
}

// Route decides a message from one agent to the list to. `switchboard send`
// asks before it posts, and the master before it delivers: the same words.
func (r *Rules) Route(from string, to []string) Route {
	route := Route{Recipients: r.Recipients(from, to)}
	for _, agent := range route.Recipients {
		if !r.Knows(agent) {
			route.Unknown = append(route.Unknown, agent)
			continue
		}
		if d := r.Decide(from, agent); d.Allowed {
			route.Delivered = append(route.Delivered, agent)
		} else {
			route.Blocked = append(route.Blocked, mailbox.Block{To: agent, Reason: d.Reason})
		}
	}
	return route
}
