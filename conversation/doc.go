// Package conversation keeps, for each agent, where its conversation with
// the team stands: what the agent is doing now (its state: busy, idle, at
// a permission prompt, exited), what of its inbox has entered its
// conversation and by which channel (the marks of what its hooks showed
// and what the master typed, and the record of how the master announced
// each logged message), the mark that holds its notices while it is over
// its budget, and the files its client leaves about the session it runs.
//
// A Book is the one owner of those files. The hooks, the panes and the
// client's own inbox each claim the messages they are about to show
// through it, so that a message enters a conversation once, by one
// channel, whichever process shows it. The messages themselves, their
// boxes and the log are the mailbox's.
package conversation
