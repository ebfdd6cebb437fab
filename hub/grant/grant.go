package grant

import "slices"

// Import is one service of the team's account that a host may use: the
// host publishes to Local, in its own account, and the server carries the
// message to Team, in the team's, and the answer back: one message, or,
// when Streamed, every message sent to the request's reply until its
// sender stops (a pull from a consumer).
type Import struct {
	Local, Team string
	Streamed    bool
}

// Grant is what one host may do on the hub.
type Grant struct {
	// Imports are every subject of the team's account the host may
	// publish to, each under a subject of its own account.
	Imports []Import
	// Feeds are the subjects of the team's account the host hears: the
	// server's own news of what changed, which no host may publish.
	Feeds []string
	// Replies is where the answers to the host's requests arrive, in its
	// own account; the host may subscribe to nothing else but Feeds.
	Replies string
}

// Publish are the subjects the host may publish to in its own account:
// those of its imports, and no other.
func (g Grant) Publish() []string {
	out := make([]string, 0, len(g.Imports))
	for _, im := range g.Imports {
		out = append(out, im.Local)
	}
	return out
}

// Subscribe are the subjects the host may subscribe to in its own account.
func (g Grant) Subscribe() []string {
	return append([]string{g.Replies}, g.Feeds...)
}

// Exports are what the team's account offers, of which each host imports
// its own part: every grant's subjects with each host's name a wildcard,
// as the Grant of the host named "*" gives them.
type Exports struct {
	// Services are answered with one message, except Streamed ones.
	Services, Streamed []string
	// Streams are heard by the hosts' accounts.
	Streams []string
}

// ExportsOf returns what the team's account must export for the grants
// made like any, the Grant of a host named "*".
func ExportsOf(any Grant) Exports {
	var e Exports
	for _, im := range any.Imports {
		if !slices.Contains(e.Services, im.Team) {
			e.Services = append(e.Services, im.Team)
		}
		if im.Streamed && !slices.Contains(e.Streamed, im.Team) {
			e.Streamed = append(e.Streamed, im.Team)
		}
	}
	for _, f := range any.Feeds {
		if !slices.Contains(e.Streams, f) {
			e.Streams = append(e.Streams, f)
		}
	}
	return e
}
