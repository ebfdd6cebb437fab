// Package master is the daemon of a workspace: it alone routes messages. It
// watches every agent's outbox with fsnotify (or polls), applies the rules,
// writes each message into its recipients' inboxes, tells senders of blocked
// and rejected messages, and numbers every routed message in the audit log.
// Its side of a team in tmux (states, borders, notices typed into panes) is
// package panes, which it tells of each delivery. Its record of a message
// vouches for what the message alone cannot prove: the request a response
// answers (Record.Answers), and that a request is the permission prompt of
// its sender's bridge (Record.Permission), the one a person's console
// offers allow and deny for.
//
// Routing is idempotent, so that a master killed at any instant and started
// again delivers and logs every message exactly once: a message is logged
// first (its record fixes its seq, delivery time and recipients), then
// delivered under names derived from that record (a copy already there is
// left alone), and only then moved out of the outbox. A restarted master that
// finds a logged message still in an outbox finishes its delivery from the
// record instead of routing it again. What waits in the outboxes when the
// loop wakes is routed as batches across outboxes (commit.go): a batch's
// records share one sync of the log, its copies are synced together beside
// it, each inbox folder is synced once, and only then do the messages leave
// their outboxes. A lone message is a batch of one, sent at once.
//
// Nothing an agent or the disk does stops the master. A bad file is
// rejected with its reason; an inbox that cannot be written is retried
// without holding up the other recipients; a full disk, or an audit log
// that cannot be written, pauses routing with the bulletin marked degraded
// until a retry goes through.
//
// In a team across machines the master holds a link.Link (Options.Link;
// package hublink makes one, and the master never imports it, so that a
// program that runs a master of one machine links no NATS). It routes a
// copy for an agent of another host to the link, and delivers the copies
// the link hands it like local ones, refusing for good, with a note in
// mailboxes/.hub/refused/, those that are not what their sender's master
// routed (fromlink.go). The commands' errands on the hub (errand.Errand: a
// lock, a shared value, the board) come through the outboxes: the loop
// takes each as its outbox owner's, refuses it for what the rules do not
// give that agent, and hands the rest to goroutines (16 at most) that do
// them through the link and answer beside the agent's sent messages, so
// that routing never waits on the hub.
package master
