// Package proctree finds the processes an agent's pane started and ends
// them. tmux makes each pane's first process the leader of a session of its
// own; what the agent's client starts stays in that session, whatever
// becomes of its parents, unless it makes a session itself. Some clients
// outlive the SIGHUP that tmux sends when a pane goes (Gemini CLI carries on
// under init), so ending a pane means signalling its session: SIGHUP, then
// SIGTERM, then SIGKILL, each after a grace.
package proctree
