package main

import "github.com/spf13/cobra"

// helpGroups are the headings of the root command's help, in the order a
// newcomer meets them, and the commands under each: someone new starts at
// the top, with init and up, and reads down.
var helpGroups = []struct {
	id, title string
	commands  []string
}{
	{"start", "Start and stop:", []string{"init", "up", "attach", "down", "doctor", "master"}},
	{"messages", "Messages:", []string{"send", "inbox", "read", "reply", "ask", "log", "show", "interrupt", "cancel"}},
	{"agents", "Agents and helpers:", []string{"agents", "spawn", "wait", "close", "diff", "merge", "profiles", "approvals", "usage"}},
	{"watch", "Watch:", []string{"top", "web", "status"}},
	{"shared", "The bulletin and shared state:", []string{"bulletin", "lock", "unlock", "state"}},
	{"hub", "Across machines:", []string{"hub"}},
	{"setup", "Rules and setup:", []string{"rules", "hooks", "hook", "mcp", "bench", "completion", "help"}},
}

// groupCommands puts each of root's commands under its heading of
// helpGroups. A command the table forgets is listed apart, under
// "Additional Commands", which TestRootHelpGroupsEveryCommand refuses.
func groupCommands(root *cobra.Command) {
	groupOf := make(map[string]string)
	for _, g := range helpGroups {
		root.AddGroup(&cobra.Group{ID: g.id, Title: g.title})
		for _, name := range g.commands {
			groupOf[name] = g.id
		}
	}
	// cobra adds these two itself, as it runs.
	root.SetHelpCommandGroupID(groupOf["help"])
	root.SetCompletionCommandGroupID(groupOf["completion"])
	for _, cmd := range root.Commands() {
		cmd.GroupID = groupOf[cmd.Name()]
	}
}
