// Package lifecycle runs the team's lifecycle in tmux: up starts every agent
// of the rules in a pane of a private server, spawn starts one more at run
// time, close ends a spawned agent and those under it, StopTeam ends the
// server and every process of its panes; the session file says where each
// agent sits.
package lifecycle
