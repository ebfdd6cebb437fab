package tmux

// newPaneHooks fire in the server as a pane is made, before its program
// can have printed anything that tmux has read.
var newPaneHooks = []string{"after-new-session", "after-new-window", "after-split-window"}

// keepLastWords are the commands, each ended by ";", that make the server
// keep what a pane's program printed last. A tmux before 3.7 closes a pane
// whose program has ended without reading what is left in its terminal,
// unless the pane is piped somewhere: a program that prints one line and
// exits at once (a mistyped command) then leaves a dead pane with nothing
// on it, in a few panes in a hundred, more on a busy machine. So every new
// pane is piped into a cat that throws it away, from a hook that runs in
// the same turn of the server as the command that made the pane. The cat
// ends with its pane.
func keepLastWords() []string {
	var args []string
	for _, hook := range newPaneHooks {
		args = append(args, "set-hook", "-g", hook+hookIndex, "pipe-pane -o 'exec cat >/dev/null'", ";")
	}
	return args
}
