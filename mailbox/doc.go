// Package mailbox owns the message and the files that hold it: the message
// model and its validation, the atomic store of inboxes and outboxes, the
// names of delivered files, and the audit log of routed messages with the
// records that vouch for what the master wrote into inboxes. An outbox
// holds errands too, which it lists apart (package errand reads them); an
// agent's state and what its conversation was shown are package
// conversation's.
//
// A message changes state only by moving between folders, and every file is
// published atomically (written to a temporary file, synced, then linked or
// renamed into place), so a reader never sees half a message and a crash at
// any instant leaves each message in exactly one place. A Delivery does the
// same for a batch of copies, synced together.
package mailbox
