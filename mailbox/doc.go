// Package mailbox owns the message and the files that hold it: the message
// model and its validation, the atomic store of inboxes and outboxes, the
// names of delivered files, and the audit log of routed messages; and the
// errands a command leaves in an outbox for the master to do on the hub of a
// team across machines, with their answers (Errand).
//
// A message changes state only by moving between folders, and every file is
// published atomically (written to a temporary file, synced, then linked or
// renamed into place), so a reader never sees half a message and a crash at
// any instant leaves each message in exactly one place. A Delivery does the
// same for a batch of copies, synced together.
package mailbox
