// Package mcpserver offers an agent switchboard as typed tools over the
// Model Context Protocol: mail (send, inbox, read, reply, ask), the team
// (agents, spawn, wait, close, cancel), the audit log (log, show), status,
// locks, shared state and the bulletin, each a call of the same desk the
// command line uses, under the same rules and with the same refusals. A refusal is a
// tool error whose text says why and what to send instead. The agent's
// inbox is a resource a client may subscribe to: it is told when mail comes
// or goes.
package mcpserver
