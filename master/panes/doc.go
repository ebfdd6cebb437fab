// Package panes is the master's side of a team in tmux. It follows each
// agent's state (from its hooks, or, for a program without hooks, from what
// its pane prints, heard through a read-only control client), keeps the
// pane borders and the status line current, publishes the team's summary
// in the bulletin, and types a one-line notice of delivered mail into each
// idle agent's pane (at once, after ESC, for an interrupt). Its tmux
// commands go over one control connection to the session, with no process
// started per command.
//
// The master gives it what it needs (Config: the workspace, a clock, a log)
// and tells it of each delivery (Announce) and each change on disk (Wake);
// it keeps no pointer back. Its loop (Run) looks at the panes when woken,
// and each tick while something is to be watched by looking; a team at
// rest costs a look every RestTick.
package panes
