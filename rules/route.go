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

// Route decides a message from one agent to the recipients msg names.
// `switchboard send` asks before it posts, and the master before it
// delivers: the same words. An interrupt reaches the agents spawned under
// its sender whatever the allow lists say of the pair (a parent cancels its
// helpers).
func (r *Rules) Route(from string, msg *mailbox.Message) Route {
	route := Route{Recipients: r.Recipients(from, msg.To)}
	for _, agent := range route.Recipients {
		if !r.Knows(agent) {
			route.Unknown = append(route.Unknown, agent)
			continue
		}
		if d := r.Decide(from, agent); d.Allowed || (msg.Type == mailbox.TypeInterrupt && r.IsAncestor(from, agent)) {
			route.Delivered = append(route.Delivered, agent)
		} else {
			route.Blocked = append(route.Blocked, mailbox.Block{To: agent, Reason: d.Reason})
		}
	}
	return route
}
