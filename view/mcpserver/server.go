package mcpserver

import (
	"context"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"switchboard/desk"
	"switchboard/internal/watch"
)

// InboxURI is the resource of the agent's inbox.
const InboxURI = "switchboard://inbox"

// Opener opens the agent's desk, with the rules as they are now: the
// server opens it for each call, so that agents spawned since it started
// are known.
type Opener func() (*desk.Desk, error)

// New returns the MCP server of one agent, whose desk open returns.
// version is the binary's.
func New(agent string, open Opener, version string) *mcp.Server {
	s := &server{open: open}
	srv := mcp.NewServer(&mcp.Implementation{Name: "switchboard", Title: "switchboard", Version: version}, &mcp.ServerOptions{
		Instructions: instructions(agent),
		SubscribeHandler: func(context.Context, *mcp.SubscribeRequest) error {
			return nil // every session hears of the inbox (see Watch)
		},
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	s.addTools(srv)
	srv.AddResource(&mcp.Resource{
		URI: InboxURI, Name: "inbox", MIMEType: "application/json",
		Description: "Your unread messages, oldest first (the inbox tool's list). Subscribe to hear when mail comes or is read.",
	}, s.readInbox)
	return srv
}

// instructions tell the client's model who it is and how to use the tools.
func instructions(agent string) string {
	return "You are " + agent + ", one agent of a team that talks through switchboard. " +
		"Use these tools for every message: inbox lists your unread mail, read shows one (or the next), " +
		"reply answers it, send writes to another agent. The team's rules decide who may write to whom: " +
		"a refusal says why. Locks and shared state are for work the team shares."
}

// Watch tells every session subscribed to the inbox when its unread mail
// changes (a message came, or one was read), until ctx is done. It looks at
// the folder on its events, and every tick as a safety net. The watch is
// in place when Watch returns: what changes after is told.
func Watch(ctx context.Context, srv *mcp.Server, d *desk.Desk, tick time.Duration) {
	store, agent := d.Workspace().Store, d.Agent()
	_ = store.Ensure(agent) // a folder made later would be looked at by the tick alone
	folders := watch.NewFolders(tick, store.InboxDir(agent))
	last, _ := store.UnreadNames(agent)
	go notifyInbox(ctx, srv, folders, d, last)
}

// notifyInbox is Watch's loop.
func notifyInbox(ctx context.Context, srv *mcp.Server, folders *watch.Folders, d *desk.Desk, last []string) {
	defer folders.Close()
	store, agent := d.Workspace().Store, d.Agent()
	for {
		select {
		case <-ctx.Done():
			return
		case <-folders.C:
		}
		names, err := store.UnreadNames(agent)
		if err != nil || slices.Equal(names, last) {
			continue
		}
		last = names
		_ = srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: InboxURI})
	}
}

type server struct{ open Opener }
