// Package linkcmd is the command line of switchboard-link, the program that
// runs the master of a host of a team across machines, with its link to the
// hub (master), and the check of a host's credentials (check). It links the
// NATS client and nothing of the NATS server (whose packages start a timer
// in every process that links them), and is a program of its own so that
// switchboard, which every hook, status line and MCP server of a team
// starts, links no NATS at all: `switchboard master` (and `up`, which starts
// it) for a host of a team across machines, and `switchboard doctor`, run it.
package linkcmd
