// Package mailbox owns the message and the files that hold it: the message
// model and its validation, the atomic store of inboxes and outboxes, the
// names of delivered files, and the audit log of routed messages.
//
// A message changes state only by moving between folders, and every file is
// published atomically (written to a temporary file, synced, then linked or
// renamed into place), so a reader never sees half a message and a crash at
// any instant leaves each message in exactly one place.
package mailbox
