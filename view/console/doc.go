// Package console is the overseer's view of a team, for the terminal
// (switchboard top): the desk's snapshot of the team (desk.Snapshot: the
// agents as a tree, those that need the person first; the questions
// waiting; the log), and a Model that draws it with lipgloss and acts on
// it through the desk's verbs as the one who runs it, so the rules decide
// as they do for the commands and the MCP tools. The keys act on the agent
// and the question the person chose, held by name and not by row: the
// team re-sorts as agents come to need the person, and an action meant
// for one must not fall on its neighbour. It is fed by events: it looks
// again when a folder of the workspace changes, not on a timer.
package console
