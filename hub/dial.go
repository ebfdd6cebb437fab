package hub

import (
	"context"

	"github.com/nats-io/nats.go/jetstream"
)

// Dial connects host to the team's locks and shared values on the hub for a
// short look (whether the hub takes the host's credentials, and is of this
// release, say), without taking the host's place: it claims no agent,
// reads no rules, takes no mail and sends no heartbeat. Lock, Unlock,
// ForceUnlock, Put, Get, Update, Values, Holder and Publish work on what it
// returns; Close it after. A command's errands do not dial: they go
// through the host's master, which alone holds its credentials.
// Of cfg, Dial reads Team, Host, RootCAs and Credentials.
func Dial(ctx context.Context, rawURL string, cfg JoinConfig) (*Conn, error) {
	cfg, err := JoinConfig{Team: cfg.Team, Host: cfg.Host, RootCAs: cfg.RootCAs, Credentials: cfg.Credentials}.withDefaults(rawURL)
	if err != nil {
		return nil, err
	}
	c, err := connect(ctx, rawURL, cfg)
	if err != nil {
		return nil, err
	}
	c.view.settle() // it follows no feed: what it is asked, it reads from the hub
	lctx, cancel := c.linked(ctx)
	defer cancel()
	// The mail stream first: it says which release prepared the hub.
	err = c.checkStreams(lctx, []jetstream.StreamConfig{c.names.mailStreamConfig()})
	if err == nil {
		err = c.openBuckets(lctx, []string{c.names.claims(), c.names.locks(), c.names.shared()})
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}
