// Package hubcmd is the command line of switchboard-hub, the program that
// runs a team's hub: an embedded NATS server with JetStream. It is a
// program of its own so that switchboard, which every hook, status line and
// MCP server of a team starts, links no server; `switchboard hub` runs it.
package hubcmd
