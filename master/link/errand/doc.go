// Package errand carries the errands of a team across machines. An errand
// is what a command asks of the hub (take or release a lock, set a shared
// value, change the team's board) through its workspace's master, which
// alone holds the host's credentials. The command leaves <id>.errand in its
// agent's outbox (written under a dot name in the outbox itself and
// renamed, as mailbox.Store.Post does a message, so that an outbox given to a contained agent as a
// mount of its own is all it needs). The master takes it as the outbox
// owner's (a file in an agent's outbox is that agent's), checks it, does it
// with its link to the hub (link.Link.Do), writes its answer to
// outbox/sent/<id>.answer, where the agent reads, and then removes the
// errand.
//
// The errands live beside the link that does them, not among the messages:
// the mailbox only lists them apart from the messages in an outbox.
package errand
