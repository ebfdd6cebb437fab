// Package desk is what an agent does with its mail, the same whether it
// asks through the command line or through the tools of the MCP server:
// send (routed by the rules), list its inbox, read, and reply. A Desk
// belongs to one agent of one workspace; its errors name no flag and no
// tool, so that each front end says what to do in its own words. What each
// front end asks for, the fields of a message sent, answered or asked
// (SendFields, ReplyFields, AskFields), is declared here once, with the
// help both show.
//
// Up brings the team up in tmux with its master, and Down stops them, for
// the person and the oversight agents alike; Spawn starts one more agent.
// The hooks of a client are wired by the Wiring the front end hands the
// desk (WithWiring), since the desk speaks no client's hook protocol.
//
// An agent's Status (its unread mail and the team's bulletin) is the desk's
// word too: the hooks and the status line draw it, the MCP server returns it.
// So is a Snapshot of the team as its overseers see it (the agents as a
// tree with what the log tells of each, the questions waiting, the log),
// which the console and the web view draw alike.
//
// Locks, the shared state and the bulletin's board are the desk's too. In a
// workspace that is a host of a team across machines (its master says so in
// a file without the password, workspace.HubHost) they are the hub's, and
// only the master holds the host's credentials: Lock, Unlock, SetState and
// ChangeBulletin leave an errand in the agent's outbox (errand.Errand),
// wait up to 20 s for the master's answer in its sent/ folder (looked for
// at once, then less and less often, every 25 ms at most, and the master's
// lock with it, so that a master that stops is noticed), and then change this
// host's bulletin as the answer says. A lock another holds is
// bulletin.ErrHeld or ErrNotHolder, wrapped; a right the master's rules do
// not give, a *RightError; the hub away, ErrHubAway; no master, ErrNoMaster,
// at once. That is all an agent in a container needs: its outbox, its
// sent/ folder, the master's lock. Reads make no trip: State and StateList
// read the shared state the master copies from the hub into this host's
// bulletin every beat (5 s), so that a value another host set shows within
// a beat. The desk never connects to the hub, and links no NATS.
package desk
