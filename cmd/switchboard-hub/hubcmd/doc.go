// Package hubcmd is the command line of switchboard-hub, the program of
// switchboard that runs a team's hub (an embedded NATS server with
// JetStream), and writes the configuration of a NATS server of one's own
// and serves a team beside it. It is a program of its own so that switchboard, which
// every hook, status line and MCP server of a team starts, links no NATS at
// all, and the master of a host (switchboard-link) links no NATS server:
// `switchboard hub` runs it.
package hubcmd
