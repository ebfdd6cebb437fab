// Package hubcmd is the command line of switchboard-hub, the program of
// switchboard that speaks NATS: it runs a team's hub (an embedded NATS
// server with JetStream), the master of a host of a team across machines,
// and the check of a host's credentials. It is a program of its own so
// that switchboard, which every hook, status line and MCP server of a team
// starts, links no NATS at all: `switchboard hub`, `switchboard master` (for
// a host of a team across machines) and `switchboard doctor` run it.
package hubcmd
