// Command switchboard runs a team of AI coding agents that talk through
// file-system mailboxes, with every message routed by one master process
// under the team's rules. Run `switchboard --help` for the commands.
package main
