// Package fakesession stands in for an agent client's session with an
// inbox of its own (Claude Code's), in tests that need no real client: an
// entry in a session registry, the key beside it, a Unix socket that reads
// what senders write, and a transcript the test decides what to write to.
package fakesession
