// Package agents runs the team's lifecycle in tmux: up starts every agent
// of the rules in a pane of a private server, spawn starts one more at run
// time, close ends a spawned agent and those under it, StopTeam ends the
// server and every process of its panes; the session file says where each
// agent sits.
//
// The profiles of the default team sit in this package's folder because the
// root of the repository is itself a workspace: its agents/ folder holds
// both this package and the team's profiles.
package agents
